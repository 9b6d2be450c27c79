package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version is set at link time (-ldflags "-X main.version=..."); otherwise the module's.
var version = ""

const versionUsage = `Usage: relayer version

Prints the build: the version set at link time, else the module's, else devel.
`

// runVersion is `relayer version`.
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", versionUsage)
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, versionString())
	return nil
}

func versionString() string {
	v := version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	if !devChainBuilt {
		return fmt.Sprintf("relayer %s (without the development chain: -tags nodevchain)", v)
	}
	return fmt.Sprintf("relayer %s", v)
}
