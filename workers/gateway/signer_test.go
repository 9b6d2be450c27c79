package gateway_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"relayer/workers/gateway"
)

// keyStrings are the spellings of a key that must never appear anywhere.
func keyStrings(t *testing.T, keyHex string) []string {
	t.Helper()
	key, err := crypto.HexToECDSA(keyHex)
	if err != nil {
		t.Fatal(err)
	}
	return []string{keyHex, strings.ToUpper(keyHex), keyHex[:16], key.D.String(), key.D.Text(16)}
}

func assertNoKey(t *testing.T, what, out string, keyHex string) {
	t.Helper()
	for _, s := range keyStrings(t, keyHex) {
		if strings.Contains(out, s) || strings.Contains(strings.ToLower(out), strings.ToLower(s)) {
			t.Fatalf("%s shows the key (%q...):\n%s", what, s[:8], out)
		}
	}
}

func TestASignerNeverShowsItsKeyWithAnyVerbOrLogger(t *testing.T) {
	t.Parallel()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	s := gateway.NewSigner(key)
	addr := crypto.PubkeyToAddress(key.PublicKey).Hex()

	holder := struct {
		Signer  *gateway.KeySigner
		Value   gateway.KeySigner
		Iface   gateway.Signer
		private *gateway.KeySigner
	}{s, *s, s, s}
	printed := fmt.Sprintf("%v %+v %#v %s %q %x %X %d %v %+v %#v %v %+v %#v",
		s, s, s, s, s, s, s, s, *s, *s, *s, holder, holder, holder)
	assertNoKey(t, "fmt", printed, keyHex)
	if !strings.Contains(printed, addr) {
		t.Fatalf("fmt does not show the address: %s", printed)
	}

	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("text", "signer", s, "value", *s, "holder", holder)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("json", "signer", s, "value", *s, "holder", holder)
	assertNoKey(t, "slog", logs.String(), keyHex)

	js, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	assertNoKey(t, "JSON", string(js), keyHex)

	// An adapter holding the signer does not show it either.
	ad := dial(t, nextKey(t), nil, gateway.WithSigner(s))
	assertNoKey(t, "adapter", fmt.Sprintf("%v %+v", ad, ad), keyHex)
	assertNoKey(t, "config", fmt.Sprintf("%v %+v %#v", ad.Config(), ad.Config(), ad.Config()), keyHex)
}

// Not parallel: it sets an environment variable.
func TestAKeyFromAnEnvironmentVariableSignsTheAdaptersTransactions(t *testing.T) {
	key := nextKey(t)
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	t.Setenv("GATEWAY_TEST_SIGNER_KEY", "0x"+keyHex+"\n")
	cfg := baseConfig(shared)
	cfg.Signer = gateway.SignerConfig{KeyEnv: "GATEWAY_TEST_SIGNER_KEY"}
	ctx := testContext(t)
	var logs bytes.Buffer
	ad, err := gateway.Dial(ctx, cfg, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	defer ad.Close()
	want := crypto.PubkeyToAddress(key.PublicKey)
	if ad.Address() != want {
		t.Fatalf("signer %s, want %s", ad.Address(), want)
	}
	p := mustPrepare(t, ctx, ad, silentRequest(t.Name()))
	if _, err := ad.Broadcast(ctx, p); err != nil {
		t.Fatal(err)
	}
	assertNoKey(t, "logs", logs.String(), keyHex)
	assertNoKey(t, "config", fmt.Sprintf("%+v", cfg), keyHex)
}

// Not parallel: it sets environment variables.
func TestABadKeyIsRefusedWithoutEchoingIt(t *testing.T) {
	key, _ := crypto.GenerateKey()
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	for name, value := range map[string]string{
		"not hex":    keyHex[:40] + "zz" + keyHex[42:],
		"too short":  keyHex[:62],
		"not a key":  strings.Repeat("f", 64), // above the curve order
		"whitespace": "   ",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("GATEWAY_TEST_BAD_KEY", value)
			_, err := gateway.LoadSigner(context.Background(), gateway.SignerConfig{KeyEnv: "GATEWAY_TEST_BAD_KEY"})
			if err == nil {
				t.Fatal("a bad key was accepted")
			}
			if !strings.Contains(err.Error(), "GATEWAY_TEST_BAD_KEY") {
				t.Fatalf("the error does not name the variable: %v", err)
			}
			if strings.TrimSpace(value) != "" && strings.Contains(err.Error(), value[:16]) {
				t.Fatalf("the error echoes the value: %v", err)
			}
			assertNoKey(t, "error", err.Error(), keyHex)
		})
	}
	if _, err := gateway.LoadSigner(context.Background(), gateway.SignerConfig{KeyEnv: "GATEWAY_TEST_UNSET_VARIABLE"}); err == nil ||
		!strings.Contains(err.Error(), "not set") {
		t.Fatalf("an unset variable: %v", err)
	}

	// The key pasted where the variable's name belongs: refused, and hidden when printed.
	cfg := gateway.Config{Signer: gateway.SignerConfig{KeyEnv: "0x" + keyHex}}
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "looks like a private key") {
		t.Fatalf("Validate: %v", err)
	}
	assertNoKey(t, "Validate", err.Error(), keyHex)
	assertNoKey(t, "config", fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg.Signer), keyHex)
	_, err = gateway.LoadSigner(context.Background(), cfg.Signer)
	assertNoKey(t, "LoadSigner", fmt.Sprint(err), keyHex)
}

func TestAKeystoreFileWithAPasswordFileLoadsAndAWrongPasswordIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, _ := crypto.GenerateKey()
	addr := crypto.PubkeyToAddress(key.PublicKey)
	// A very light scrypt keeps the test quick; the file format is the real one.
	js, err := keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: addr, PrivateKey: key}, "correct horse", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "keystore.json")
	if err := os.WriteFile(file, js, 0o600); err != nil {
		t.Fatal(err)
	}
	pw := filepath.Join(dir, "password")
	if err := os.WriteFile(pw, []byte("correct horse\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := gateway.LoadSigner(context.Background(), gateway.SignerConfig{KeystoreFile: file, PasswordFile: pw})
	if err != nil {
		t.Fatal(err)
	}
	if s.Address() != addr {
		t.Fatalf("address %s, want %s", s.Address(), addr)
	}
	if err := os.WriteFile(pw, []byte("battery staple"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = gateway.LoadSigner(context.Background(), gateway.SignerConfig{KeystoreFile: file, PasswordFile: pw})
	if err == nil || strings.Contains(err.Error(), "battery") || strings.Contains(err.Error(), "horse") {
		t.Fatalf("wrong password: %v", err)
	}
	assertNoKey(t, "error", err.Error(), hex.EncodeToString(crypto.FromECDSA(key)))
	if _, err := gateway.LoadSigner(context.Background(), gateway.SignerConfig{KeystoreFile: file}); err == nil {
		t.Fatal("a keystore without password file was accepted")
	}
}

// flakySigner is a Signer whose answers the test sets: an error, or another key's signature.
type flakySigner struct {
	key   *ecdsa.PrivateKey
	mu    sync.Mutex
	fail  error
	wrong *ecdsa.PrivateKey
}

func (f *flakySigner) Address() common.Address { return crypto.PubkeyToAddress(f.key.PublicKey) }

func (f *flakySigner) SignHash(_ context.Context, digest common.Hash) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.fail != nil:
		return nil, f.fail
	case f.wrong != nil:
		return crypto.Sign(digest[:], f.wrong)
	}
	return crypto.Sign(digest[:], f.key)
}

func (f *flakySigner) set(fail error, wrong *ecdsa.PrivateKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail, f.wrong = fail, wrong
}

// A signer that fails (a key service down) or answers another key's signature makes Prepare
// fail with ErrSigner, which is retryable: nothing is signed, and the nonce it took goes back,
// so the next transaction takes it.
func TestASignerThatFailsOrSignsWithAnotherKeyFailsPrepareRetryablyAndGivesTheNonceBack(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	key := nextKey(t)
	other, _ := crypto.GenerateKey()
	s := &flakySigner{key: key}
	ad := dial(t, key, nil, gateway.WithSigner(s))
	pending, err := shared.Client().PendingNonceAt(ctx, s.Address())
	if err != nil {
		t.Fatal(err)
	}
	for name, set := range map[string]func(){
		"fails":            func() { s.set(errors.New("KMS throttled the request"), nil) },
		"signs as another": func() { s.set(nil, other) },
	} {
		set()
		_, err := ad.Prepare(ctx, silentRequest(uniqueSeed(t)))
		if !errors.Is(err, gateway.ErrSigner) || !gateway.Retryable(err) {
			t.Fatalf("a signer that %s: %v, want a retryable ErrSigner", name, err)
		}
	}
	s.set(nil, nil)
	p := mustPrepare(t, ctx, ad, silentRequest(uniqueSeed(t)))
	if p.Nonce != pending || p.From != s.Address() {
		t.Fatalf("after the failures the transaction takes nonce %d from %s, want %d from %s", p.Nonce, p.From, pending, s.Address())
	}
	if _, err := ad.Broadcast(ctx, p); err != nil {
		t.Fatal(err)
	}
}
