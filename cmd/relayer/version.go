package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at link time (-ldflags "-X main.version=..."); otherwise the module's.
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("relayer %s", v)
}
