// Package kmstest runs a real AWS KMS emulator for the tests of KMS signers: local-kms
// (github.com/nsmithuk/local-kms, pinned in go.mod as a tool; `make local-kms` installs it where
// Binary looks), which speaks KMS's JSON protocol and signs with ECC_SECG_P256K1 keys. Each
// Start is a process of its own on a free port with its own data directory, stopped when the
// test ends. Without the binary a test skips, or fails when CI=true, where every test must run.
// Only tests import it.
package kmstest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"
)

// The emulator's Region and account: its keys' ARNs are arn:aws:kms:eu-west-2:111122223333:key/<id>.
const (
	Region    = "eu-west-2"
	AccountID = "111122223333"
)

// Install says how to get the emulator.
const Install = "install it with `make local-kms` (go install github.com/nsmithuk/local-kms, at the version go.mod pins, run in the repository)"

// Emulator is a running local-kms.
type Emulator struct {
	// Endpoint is its URL, http://127.0.0.1:<port> (signer.kms.endpoint).
	Endpoint string
	// Client is a KMS client of it, with test credentials of its own (the emulator checks none).
	Client *kms.Client

	bin, dir, port string
	stop           func() // kills the process and waits for it
}

// Binary returns the local-kms executable: on PATH, in GOBIN, or in GOPATH's bin (where
// `make local-kms` puts it). Without one, tb skips, or fails when CI=true.
func Binary(tb testing.TB) string {
	tb.Helper()
	if p, err := exec.LookPath("local-kms"); err == nil {
		return p
	}
	var dirs []string
	if gobin := goEnv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	for _, gp := range filepath.SplitList(goEnv("GOPATH")) {
		dirs = append(dirs, filepath.Join(gp, "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "local-kms")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	msg := fmt.Sprintf("the AWS KMS emulator local-kms is not on PATH nor in %v: %s", dirs, Install)
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg + " (CI=true: the KMS tests must run)")
	}
	tb.Skip(msg)
	return ""
}

// goEnv is `go env name`, or the variable itself when go cannot be run.
func goEnv(name string) string {
	if out, err := exec.Command("go", "env", name).Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return os.Getenv(name)
}

// Start runs a local-kms on a free port with a data directory of its own, and stops it when tb
// ends. Without the binary tb skips (fails when CI=true).
func Start(tb testing.TB) *Emulator {
	tb.Helper()
	e := &Emulator{bin: Binary(tb), dir: tb.TempDir(), port: "0"}
	e.start(tb)
	e.Endpoint = "http://127.0.0.1:" + e.port
	e.Client = kms.New(kms.Options{
		Region:       Region,
		BaseEndpoint: aws.String(e.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDKMSTESTCLIENT", "kmstest-client-secret", ""),
	})
	return e
}

// Stop stops the emulator, as an outage of KMS: its endpoint refuses connections until Restart.
func (e *Emulator) Stop() { e.stop() }

// Restart starts the emulator again on the same port with the same data, hence the same keys.
func (e *Emulator) Restart(tb testing.TB) {
	tb.Helper()
	e.stop()
	e.start(tb)
}

// started is local-kms's line once it listens: "Local KMS started on 0.0.0.0:<port>" (it picks a
// free port for PORT=0 and says which).
var started = regexp.MustCompile(`Local KMS started on [^\s:]*:(\d+)`)

// start runs the process on e.port ("0": a free one, then e.port is it) and waits until it listens.
func (e *Emulator) start(tb testing.TB) {
	tb.Helper()
	cmd := exec.Command(e.bin)
	// local-kms listens on every interface (it takes a port, not an address); the tests reach it
	// on loopback.
	cmd.Env = append(os.Environ(), "PORT="+e.port, "KMS_DATA_PATH="+filepath.Join(e.dir, "data"),
		"KMS_REGION="+Region, "KMS_ACCOUNT_ID="+AccountID, "KMS_SEED_PATH="+filepath.Join(e.dir, "no-seed.yaml"))
	out, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr // both to the one pipe
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", e.bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	var once sync.Once
	e.stop = func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			<-exited
		})
	}
	tb.Cleanup(e.stop)

	port := make(chan string, 1)
	var mu sync.Mutex
	var lines []string
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			mu.Lock()
			if len(lines) < 50 {
				lines = append(lines, sc.Text())
			}
			mu.Unlock()
			if m := started.FindStringSubmatch(sc.Text()); m != nil {
				port <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, out) // it logs every request: keep the pipe flowing
	}()
	select {
	case e.port = <-port:
		return
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		tb.Fatalf("local-kms exited at start (%v):\n%s", waitErr, strings.Join(lines, "\n"))
	case <-time.After(20 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		tb.Fatalf("local-kms did not say it listens within 20 s:\n%s", strings.Join(lines, "\n"))
	}
}

// CreateKey creates a secp256k1 signing key (ECC_SECG_P256K1, SIGN_VERIFY), as an operator would
// for the relayer, and returns its id and ARN.
func (e *Emulator) CreateKey(tb testing.TB) (id, arn string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := e.Client.CreateKey(ctx, &kms.CreateKeyInput{
		KeySpec:     kmstypes.KeySpecEccSecgP256k1,
		KeyUsage:    kmstypes.KeyUsageTypeSignVerify,
		Description: aws.String("relayer test key " + tb.Name()),
	})
	if err != nil {
		tb.Fatalf("create a secp256k1 key: %v", err)
	}
	return aws.ToString(out.KeyMetadata.KeyId), aws.ToString(out.KeyMetadata.Arn)
}

// CreateAlias names key id alias/<name> and returns the alias.
func (e *Emulator) CreateAlias(tb testing.TB, name, id string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alias := "alias/" + name
	if _, err := e.Client.CreateAlias(ctx, &kms.CreateAliasInput{AliasName: aws.String(alias), TargetKeyId: aws.String(id)}); err != nil {
		tb.Fatalf("create alias %s: %v", alias, err)
	}
	return alias
}

// UseCredentials puts test credentials into the environment, where the AWS SDK's standard chain
// (what a signer configured with gateway.KMSConfig uses) finds them, for the rest of the test,
// and returns the secret access key, random, so that the test can check it never shows. It
// sets environment variables: the test must not be parallel.
func UseCredentials(tb testing.TB) (secret string) {
	tb.Helper()
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	secret = "kmstest" + hex.EncodeToString(b)
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDKMSTESTENV", "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "",
		// No shared files, no instance metadata: the environment's credentials alone.
		"AWS_CONFIG_FILE": filepath.Join(tb.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(tb.TempDir(), "none"),
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		tb.Setenv(k, v)
	}
	return secret
}
