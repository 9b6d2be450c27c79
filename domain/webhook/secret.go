package webhook

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// SecretPrefix starts every signing secret, as Standard Webhooks writes them.
const SecretPrefix = "whsec_"

// secretBytes is the length of a signing secret's random part (Standard Webhooks: 24 to 64).
const secretBytes = 32

// NewSecret draws a signing secret from rnd (crypto/rand.Reader): "whsec_" and the standard
// base64 of 32 random bytes.
func NewSecret(rnd io.Reader) (string, error) {
	b := make([]byte, secretBytes)
	if _, err := io.ReadFull(rnd, b); err != nil {
		return "", fmt.Errorf("webhook: draw a secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// SecretKey is the HMAC key of a signing secret: the bytes its base64 part encodes.
func SecretKey(secret string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(b) == 0 {
		return nil, errors.New("webhook: a signing secret is whsec_ and base64") // never the secret itself
	}
	return b, nil
}

// Key seals the signing secrets in the log (the webhooks.secret_key setting): 32 bytes for
// AES-256-GCM. It never prints itself: fmt and slog show its id only.
type Key struct {
	k  [32]byte
	ok bool
}

// ParseKey reads a sealing key: 64 hex digits, or the base64 (standard or URL alphabet, padded
// or not) of 32 bytes, such as `openssl rand -hex 32` or `openssl rand -base64 32` print.
func ParseKey(s string) (Key, error) {
	s = strings.TrimSpace(s)
	var b []byte
	if len(s) == 64 {
		b, _ = hex.DecodeString(s)
	}
	if b == nil {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if d, err := enc.DecodeString(s); err == nil {
				b = d
				break
			}
		}
	}
	if len(b) != 32 {
		return Key{}, fmt.Errorf("must be 32 bytes as 64 hex digits or base64 (openssl rand -hex 32), got %d characters", len(s))
	}
	var k Key
	copy(k.k[:], b)
	k.ok = true
	return k, nil
}

// IsZero tells whether k is no key (webhooks off).
func (k Key) IsZero() bool { return !k.ok }

// ID names the key without revealing it: 8 hex digits of a hash of it. A sealed secret carries
// the id of the key that sealed it, so that opening it under another key says so.
func (k Key) ID() string {
	if !k.ok {
		return "none"
	}
	h := sha256.Sum256(append([]byte("relayer webhook sealing key id\x00"), k.k[:]...))
	return hex.EncodeToString(h[:4])
}

func (k Key) String() string               { return "webhook sealing key " + k.ID() }
func (k Key) GoString() string             { return k.String() }
func (k Key) LogValue() slog.Value         { return slog.StringValue(k.String()) }
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Sealed is a signing secret as the log keeps it: "v1.<key id>.<base64url of nonce and
// AES-256-GCM ciphertext>", the endpoint's id bound as additional data.
type Sealed string

const sealedVersion = "v1"

func sealAD(endpoint string) []byte { return []byte("relayer webhook secret\x00" + endpoint) }

func (k Key) aead() (cipher.AEAD, error) {
	block, err := aes.NewCipher(k.k[:])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal seals endpoint's signing secret under k, with a nonce drawn from rnd.
func Seal(k Key, endpoint, secret string, rnd io.Reader) (Sealed, error) {
	if !k.ok {
		return "", errors.New("webhook: no sealing key (webhooks.secret_key)")
	}
	aead, err := k.aead()
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := io.ReadFull(rnd, nonce); err != nil {
		return "", fmt.Errorf("webhook: draw a nonce: %w", err)
	}
	box := aead.Seal(nonce, nonce, []byte(secret), sealAD(endpoint))
	return Sealed(sealedVersion + "." + k.ID() + "." + base64.RawURLEncoding.EncodeToString(box)), nil
}

// ErrWrongKey reports a sealed secret that another key sealed: the webhooks.secret_key setting
// changed since the endpoint was registered or rotated.
var ErrWrongKey = errors.New("webhook: the secret was sealed under another key")

// Open returns endpoint's signing secret from s.
func Open(k Key, endpoint string, s Sealed) (string, error) {
	if !k.ok {
		return "", errors.New("webhook: no sealing key (webhooks.secret_key)")
	}
	version, rest, ok1 := strings.Cut(string(s), ".")
	id, body, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || version != sealedVersion {
		return "", errors.New("webhook: not a sealed secret")
	}
	if id != k.ID() {
		return "", fmt.Errorf("%w %s (the configured key is %s)", ErrWrongKey, id, k.ID())
	}
	box, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", errors.New("webhook: not a sealed secret")
	}
	aead, err := k.aead()
	if err != nil {
		return "", err
	}
	if len(box) < aead.NonceSize() {
		return "", errors.New("webhook: not a sealed secret")
	}
	plain, err := aead.Open(nil, box[:aead.NonceSize()], box[aead.NonceSize():], sealAD(endpoint))
	if err != nil {
		return "", fmt.Errorf("webhook: the sealed secret of endpoint %s does not open (tampered, or sealed for another endpoint)", endpoint)
	}
	return string(plain), nil
}
