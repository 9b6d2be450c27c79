package main

import (
	"errors"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeRunStopsCleanlyOnCtrlC runs the README's first command, make run, and stops it as a
// terminal's Ctrl-C does: SIGINT to the whole process group. The relayer stops gracefully, and
// make ends as a program ended by Ctrl-C does (by the signal, or with status 0), without a
// "make: ***" line: it said "Error 1" or "Interrupt" after every Ctrl-C while it ran go run,
// whose exit status is 1 after an interrupt even when the program stopped cleanly.
func TestMakeRunStopsCleanlyOnCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the relayer with make")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make, to run the README's quickstart: %v", err)
	}
	dir := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", "run", "BIN="+dir+"/relayer", // not the checkout's bin/relayer
		"LISTEN=127.0.0.1:0", "DEVCHAIN_RPC=127.0.0.1:0", "DATA_DIR="+dir+"/data")
	cmd.Dir = "../.."
	cmd.Env = crashEnv("")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

	servingLine := regexp.MustCompile(`msg=serving url=(http://\S+)`)
	var url string
	for deadline := time.Now().Add(5 * time.Minute); url == ""; {
		if m := servingLine.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("make run ended before serving (%v):\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("make run did not serve within 5 minutes:\n%s", out.String())
		}
	}
	res, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v\n%s", err, out.String())
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %d\n%s", res.StatusCode, out.String())
	}

	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGINT) {
			t.Fatalf("make run after Ctrl-C: %v, want exit status 0 or the interrupt:\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("make run did not stop within a minute of Ctrl-C:\n%s", out.String())
	}
	if strings.Contains(out.String(), "make: ***") {
		t.Fatalf("make run reported an error after Ctrl-C:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "relayer serve: stopped") {
		t.Fatalf("make run did not say that serve stopped:\n%s", out.String())
	}
}
