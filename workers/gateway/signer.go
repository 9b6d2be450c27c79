package gateway

import (
	"context"
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
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Signer is a signing key the adapter sends transactions with (DESIGN section 13): its address,
// and secp256k1 signatures over 32-byte digests made with it. The adapter signs a transaction by
// the hash go-ethereum's types.Signer gives (types.LatestSignerForChainID) and checks that the
// signature recovers to Address before it uses it.
//
// Implementations: KeySigner (a key held in memory, from an environment variable or a keystore
// file) and KMSSigner (an AWS KMS key, which never leaves KMS). An implementation must be safe
// for concurrent use, and must never show secret material: printed, logged or marshalled, it
// shows its address (and where the key is), nothing else.
type Signer interface {
	// Address is the key's account.
	Address() common.Address
	// SignHash signs digest and answers 65 bytes [R || S || V], V 0 or 1 and S at most half the
	// curve order (EIP-2), as go-ethereum's crypto.Sign does. ctx bounds a signer that asks a
	// service; its errors never contain secrets.
	SignHash(ctx context.Context, digest common.Hash) ([]byte, error)
}

// SignerConfig says where one signing key comes from: a hex private key in an environment
// variable (KeyEnv), a go-ethereum keystore file decrypted with the password in PasswordFile,
// or an AWS KMS key (KMS). Exactly one of them. The key itself is never part of the
// configuration, nor are AWS credentials (the SDK's standard chain supplies those), so the
// configuration can be printed and logged.
type SignerConfig struct {
	// KeyEnv names the environment variable holding the key: 64 hex digits, 0x optional
	// (e.g. "RELAYER_SIGNER_KEY").
	KeyEnv string
	// KeystoreFile is a go-ethereum keystore (V3) JSON file.
	KeystoreFile string
	// PasswordFile holds the keystore's password (one trailing newline is ignored).
	PasswordFile string
	// KMS is an AWS KMS key (kms.go).
	KMS KMSConfig
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

// Validate reports every problem of c (joined errors naming the field: Signer.KeyEnv,
// Signer.KMS.KeyID, ...), or nil. An empty c is valid here: no signer. No problem quotes a value
// that may be a key.
func (c SignerConfig) Validate() error { return errors.Join(c.problems()...) }

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
	if !c.KMS.IsZero() {
		switch {
		case c.KeyEnv != "":
			bad("KMS and Signer.KeyEnv are both set; choose one key source")
		case c.KeystoreFile != "" || c.PasswordFile != "":
			bad("KMS and Signer.KeystoreFile are both set; choose one key source")
		}
		for _, p := range c.KMS.problems() {
			bad("KMS.%s", p)
		}
	}
	return errs
}

// String shows the configuration, with KeyEnv hidden when it holds what looks like a key and the
// KMS endpoint reduced to its scheme and host.
func (c SignerConfig) String() string {
	env := c.KeyEnv
	if looksLikeKey(env) {
		env = redactedKey
	}
	return fmt.Sprintf("{KeyEnv:%s KeystoreFile:%s PasswordFile:%s KMS:%s}", env, c.KeystoreFile, c.PasswordFile, c.KMS)
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

const redactedKey = "[redacted: looks like a key]"

// loadTimeout bounds LoadSigner's calls to a key service (KMS's GetPublicKey, with the SDK's
// retries), whatever the caller's context.
const loadTimeout = 30 * time.Second

// LoadSigner reads the key cfg points to: a KeySigner for KeyEnv and KeystoreFile, a KMSSigner
// for KMS (which asks KMS for the key's public key, within ctx and at most 30 s). Its errors
// name the variable, file or KMS key, never the key, the password or AWS credentials.
func LoadSigner(ctx context.Context, cfg SignerConfig) (Signer, error) {
	if errs := cfg.problems(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	switch {
	case cfg.KeyEnv != "":
		return signerFromEnv(cfg.KeyEnv)
	case cfg.KeystoreFile != "":
		return signerFromKeystore(cfg.KeystoreFile, cfg.PasswordFile)
	case !cfg.KMS.IsZero():
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		return loadKMSSigner(ctx, cfg.KMS)
	default:
		return nil, errors.New("gateway: no signer configured (set Signer.KeyEnv, Signer.KeystoreFile or Signer.KMS.KeyID)")
	}
}

func signerFromEnv(name string) (*KeySigner, error) {
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

func signerFromKeystore(file, passwordFile string) (*KeySigner, error) {
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

// KeySigner is a Signer whose private key is held in memory (Config.Signer's KeyEnv or
// KeystoreFile, or the development chain's keys). It never shows the key: every fmt verb, slog,
// JSON and text marshalling print the address and "[redacted]". Copies share the key.
type KeySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewSigner wraps key (e.g. the development chain's relayer key).
func NewSigner(key *ecdsa.PrivateKey) *KeySigner {
	return &KeySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// Address is the signer's account.
func (s *KeySigner) Address() common.Address { return s.addr }

// SignHash signs digest with the key (crypto.Sign: [R || S || V], low S).
func (s *KeySigner) SignHash(_ context.Context, digest common.Hash) ([]byte, error) {
	return crypto.Sign(digest[:], s.key)
}

// String shows the address only.
func (s KeySigner) String() string {
	return fmt.Sprintf("gateway.KeySigner{address: %s, key: [redacted]}", s.addr.Hex())
}

// GoString is String (for %#v).
func (s KeySigner) GoString() string { return s.String() }

// Format prints String for every verb and flag (%v, %+v, %#v, %s, %x, %d, ...).
func (s KeySigner) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// LogValue shows the address only in slog records.
func (s KeySigner) LogValue() slog.Value {
	return slog.GroupValue(slog.String("address", s.addr.Hex()), slog.String("key", "[redacted]"))
}

// MarshalText shows the address only (JSON, YAML, slog's text handler).
func (s KeySigner) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// signTx signs tx for chainID with s: the latest fork's types.Signer gives the hash (EIP-1559,
// EIP-155), s signs it, and the signature must recover to s.Address(), so that a signer that
// answers with another key's signature cannot put another account's transaction, hence another
// nonce sequence, under s's name. A KeySigner's signature is its key's by construction (its
// address comes from that key, and crypto.Sign computes the recovery id), so the recovery, which
// costs more than the signing, is left out for it.
func signTx(ctx context.Context, s Signer, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	ts := types.LatestSignerForChainID(chainID)
	sig, err := s.SignHash(ctx, ts.Hash(tx))
	if err != nil {
		return nil, err
	}
	signed, err := tx.WithSignature(ts, sig)
	if err != nil {
		return nil, err
	}
	if _, local := s.(*KeySigner); local {
		return signed, nil
	}
	from, err := types.Sender(ts, signed)
	if err != nil {
		return nil, fmt.Errorf("the signature does not recover: %w", err)
	}
	if from != s.Address() {
		return nil, fmt.Errorf("the signature recovers to %s, not to the signer's address %s", from, s.Address())
	}
	return signed, nil
}
