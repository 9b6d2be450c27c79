package gateway

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"regexp"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// SignerConfig says where the signing key comes from: a hex private key in an environment
// variable (KeyEnv), or a go-ethereum keystore file decrypted with the password in
// PasswordFile. Never both. The key itself is never part of the configuration, so the
// configuration can be printed and logged.
type SignerConfig struct {
	// KeyEnv names the environment variable holding the key: 64 hex digits, 0x optional
	// (e.g. "RELAYER_SIGNER_KEY").
	KeyEnv string
	// KeystoreFile is a go-ethereum keystore (V3) JSON file.
	KeystoreFile string
	// PasswordFile holds the keystore's password (one trailing newline is ignored).
	PasswordFile string
}

// IsZero reports whether no key source is configured.
func (c SignerConfig) IsZero() bool { return c == SignerConfig{} }

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// looksLikeKey reports whether s is a private key pasted where a name belongs.
func looksLikeKey(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0x"), "0X")
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func (c SignerConfig) problems() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("gateway: Signer."+format, args...)) }
	switch {
	case c.KeyEnv == "":
	case looksLikeKey(c.KeyEnv):
		bad("KeyEnv holds what looks like a private key; it must NAME an environment variable that holds the key")
	case !envName.MatchString(c.KeyEnv):
		bad("KeyEnv must be an environment variable name (letters, digits, _)")
	}
	if c.KeyEnv != "" && c.KeystoreFile != "" {
		bad("KeyEnv and Signer.KeystoreFile are both set; choose one key source")
	}
	if c.KeystoreFile != "" && c.PasswordFile == "" {
		bad("KeystoreFile needs Signer.PasswordFile")
	}
	if c.PasswordFile != "" && c.KeystoreFile == "" {
		bad("PasswordFile is set without Signer.KeystoreFile")
	}
	return errs
}

// String shows the configuration, with KeyEnv hidden when it holds what looks like a key.
func (c SignerConfig) String() string {
	env := c.KeyEnv
	if looksLikeKey(env) {
		env = "[redacted: looks like a key]"
	}
	return fmt.Sprintf("{KeyEnv:%s KeystoreFile:%s PasswordFile:%s}", env, c.KeystoreFile, c.PasswordFile)
}

// GoString is String, so that %#v cannot show a key pasted into KeyEnv either.
func (c SignerConfig) GoString() string { return "gateway.SignerConfig" + c.String() }

// Format prints String for every verb.
func (c SignerConfig) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, c.GoString())
		return
	}
	_, _ = io.WriteString(f, c.String())
}

// Signer holds the relayer's signing key. It never shows the key: every fmt verb, slog, JSON and
// text marshalling print the address and "[redacted]". Copies share the key.
type Signer struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewSigner wraps key (e.g. the development chain's relayer key).
func NewSigner(key *ecdsa.PrivateKey) *Signer {
	return &Signer{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// LoadSigner reads the key cfg points to. Its errors name the variable or file, never the key
// or the password.
func LoadSigner(cfg SignerConfig) (*Signer, error) {
	if errs := cfg.problems(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	switch {
	case cfg.KeyEnv != "":
		return signerFromEnv(cfg.KeyEnv)
	case cfg.KeystoreFile != "":
		return signerFromKeystore(cfg.KeystoreFile, cfg.PasswordFile)
	default:
		return nil, errors.New("gateway: no signer configured (set Signer.KeyEnv or Signer.KeystoreFile)")
	}
}

func signerFromEnv(name string) (*Signer, error) {
	v, ok := os.LookupEnv(name)
	if !ok || strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("gateway: environment variable %s is not set", name)
	}
	s := strings.TrimSpace(v)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 64 {
		return nil, fmt.Errorf("gateway: environment variable %s does not hold a private key: want 64 hex digits, has %d characters", name, len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		// hex's error names the offending character: not repeated.
		return nil, fmt.Errorf("gateway: environment variable %s does not hold a private key: not hex", name)
	}
	defer clear(b)
	key, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, fmt.Errorf("gateway: environment variable %s does not hold a valid secp256k1 private key", name)
	}
	return NewSigner(key), nil
}

func signerFromKeystore(file, passwordFile string) (*Signer, error) {
	js, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("gateway: read keystore file: %w", err)
	}
	pw, err := os.ReadFile(passwordFile)
	if err != nil {
		return nil, fmt.Errorf("gateway: read password file: %w", err)
	}
	defer clear(pw)
	password := strings.TrimSuffix(strings.TrimSuffix(string(pw), "\n"), "\r")
	k, err := keystore.DecryptKey(js, password)
	if err != nil {
		// keystore's errors ("could not decrypt key with given password", JSON errors) carry
		// neither the password nor the key.
		return nil, fmt.Errorf("gateway: keystore file %s: %w", file, err)
	}
	return NewSigner(k.PrivateKey), nil
}

// Address is the signer's account.
func (s *Signer) Address() common.Address { return s.addr }

// sign signs tx for chainID (EIP-155 / EIP-1559 signer of the latest fork).
func (s *Signer) sign(tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), s.key)
}

// String shows the address only.
func (s Signer) String() string {
	return fmt.Sprintf("gateway.Signer{address: %s, key: [redacted]}", s.addr.Hex())
}

// GoString is String (for %#v).
func (s Signer) GoString() string { return s.String() }

// Format prints String for every verb and flag (%v, %+v, %#v, %s, %x, %d, ...).
func (s Signer) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// LogValue shows the address only in slog records.
func (s Signer) LogValue() slog.Value {
	return slog.GroupValue(slog.String("address", s.addr.Hex()), slog.String("key", "[redacted]"))
}

// MarshalText shows the address only (JSON, YAML, slog's text handler).
func (s Signer) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
