package gateway

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/url"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// KMSConfig is an AWS KMS key that signs for the relayer: an asymmetric key of spec
// ECC_SECG_P256K1 (secp256k1, Ethereum's curve) and usage SIGN_VERIFY. The private key never
// leaves KMS; each transaction costs one KMS Sign call. AWS credentials are never part of it:
// they come from the SDK's standard chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a
// profile of ~/.aws, web identity, the instance's or the task's role), and the principal needs
// kms:GetPublicKey and kms:Sign on the key.
type KMSConfig struct {
	// KeyID names the key: its id ("1234abcd-12ab-34cd-56ef-1234567890ab", or "mrk-..." for a
	// multi-Region key), its ARN, an alias ("alias/relayer") or an alias's ARN. Required.
	KeyID string `yaml:"key_id" json:"key_id"`
	// Region is the key's AWS Region ("eu-west-1"). Empty: the ARN's, when KeyID is an ARN,
	// else the SDK's (AWS_REGION, the profile's).
	Region string `yaml:"region" json:"region"`
	// Endpoint replaces the Region's KMS endpoint: an emulator (local-kms), a VPC endpoint.
	// http or https, without credentials.
	Endpoint string `yaml:"endpoint" json:"endpoint"`
}

// IsZero reports whether no KMS key is configured.
func (c KMSConfig) IsZero() bool { return c == KMSConfig{} }

// String shows the key, its Region and the endpoint's scheme and host.
func (c KMSConfig) String() string {
	if c.IsZero() {
		return "{}"
	}
	id := c.KeyID
	if looksLikeKey(id) {
		id = redactedKey
	}
	return fmt.Sprintf("{KeyID:%s Region:%s Endpoint:%s}", id, c.Region, redactURL(c.Endpoint))
}

// Format prints String for every verb.
func (c KMSConfig) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

var (
	awsRegion = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	// A multi-Region key's id: "mrk-" and 32 hex digits.
	multiRegionKeyID = regexp.MustCompile(`^mrk-[0-9a-f]{32}$`)
	aliasName        = regexp.MustCompile(`^alias/[A-Za-z0-9/_-]{1,250}$`)
)

// problems lists what is wrong with c, each starting with its field's name. No problem quotes a
// value that fails its check (a key or a credential pasted by mistake).
func (c KMSConfig) problems() []string {
	var ps []string
	keyRegion := ""
	switch id := c.KeyID; {
	case id == "":
		ps = append(ps, "KeyID is not set: name the key by its id, ARN or alias (alias/...)")
	case looksLikeKey(id):
		ps = append(ps, "KeyID holds what looks like a private key; it must NAME a KMS key (id, ARN or alias)")
	case strings.HasPrefix(id, "arn:"):
		a, err := arn.Parse(id)
		switch {
		case err != nil:
			ps = append(ps, "KeyID starts with arn: but is not an ARN")
		case a.Service != "kms" || a.Region == "" ||
			!(strings.HasPrefix(a.Resource, "key/") || strings.HasPrefix(a.Resource, "alias/")):
			ps = append(ps, "KeyID is an ARN but not a KMS key's or alias's (arn:<partition>:kms:<region>:<account>:key/<id> or :alias/<name>)")
		default:
			keyRegion = a.Region
		}
	case strings.HasPrefix(id, "alias/"):
		if !aliasName.MatchString(id) {
			ps = append(ps, "KeyID is not a valid alias name (alias/ then letters, digits, /, _ and -)")
		}
	default:
		if _, err := uuid.Parse(id); (err != nil || len(id) != 36) && !multiRegionKeyID.MatchString(id) {
			ps = append(ps, "KeyID is neither a key id (1234abcd-12ab-34cd-56ef-1234567890ab, mrk-...), an ARN, nor an alias (alias/...)")
		}
	}
	if c.Region != "" && !awsRegion.MatchString(c.Region) {
		ps = append(ps, "Region is not an AWS Region (such as eu-west-1)")
	}
	if keyRegion != "" && c.Region != "" && keyRegion != c.Region {
		ps = append(ps, fmt.Sprintf("Region is %s but the KeyID's ARN is in %s", c.Region, keyRegion))
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		switch {
		case err != nil:
			ps = append(ps, "Endpoint is not a URL") // url.Parse's error quotes it: not repeated
		case u.Scheme != "http" && u.Scheme != "https":
			ps = append(ps, fmt.Sprintf("Endpoint must be an http or https URL (has scheme %q)", u.Scheme))
		case u.Host == "":
			ps = append(ps, "Endpoint has no host")
		case u.User != nil:
			ps = append(ps, "Endpoint carries credentials; AWS credentials come from the SDK's standard chain (AWS_ACCESS_KEY_ID, a profile, a role), never from the configuration")
		}
	}
	return ps
}

// region is the Region to ask: Region, else the KeyID's ARN's ("" when neither says).
func (c KMSConfig) region() string {
	if c.Region != "" {
		return c.Region
	}
	if a, err := arn.Parse(c.KeyID); err == nil {
		return a.Region
	}
	return ""
}

// KMSAPI is the part of the AWS KMS client a KMSSigner calls (*kms.Client is one).
type KMSAPI interface {
	GetPublicKey(ctx context.Context, in *kms.GetPublicKeyInput, opts ...func(*kms.Options)) (*kms.GetPublicKeyOutput, error)
	Sign(ctx context.Context, in *kms.SignInput, opts ...func(*kms.Options)) (*kms.SignOutput, error)
}

// KMSSigner is a Signer whose key is an AWS KMS key of spec ECC_SECG_P256K1: the key never
// leaves KMS, which signs each digest (Sign, MessageType DIGEST, ECDSA_SHA_256); the KMSSigner
// turns its DER signature into Ethereum's [R || S || V] (S normalised to the lower half of the
// curve order, V found by recovering the public key). It holds no secret: printed or logged, it
// shows its address and key. Safe for concurrent use.
type KMSSigner struct {
	client KMSAPI
	keyID  string // as configured (an id, an ARN or an alias), for messages
	arn    string // the key's ARN, as GetPublicKey answered it: what Sign is asked with, so that an alias moved to another key cannot change the signer
	addr   common.Address
}

// NewKMSSigner reads the public key of keyID (id, ARN or alias) through client and checks that
// it is a secp256k1 signing key. ctx bounds the call.
func NewKMSSigner(ctx context.Context, client KMSAPI, keyID string) (*KMSSigner, error) {
	out, err := client.GetPublicKey(ctx, &kms.GetPublicKeyInput{KeyId: aws.String(keyID)})
	if err != nil {
		return nil, fmt.Errorf("gateway: KMS key %s: get its public key: %w", keyID, err)
	}
	if out.KeySpec != kmstypes.KeySpecEccSecgP256k1 || out.KeyUsage != kmstypes.KeyUsageTypeSignVerify {
		return nil, fmt.Errorf("gateway: KMS key %s is a %s key for %s; an Ethereum key is %s for %s",
			keyID, out.KeySpec, out.KeyUsage, kmstypes.KeySpecEccSecgP256k1, kmstypes.KeyUsageTypeSignVerify)
	}
	pub, err := parseKMSPublicKey(out.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("gateway: KMS key %s: %w", keyID, err)
	}
	s := &KMSSigner{client: client, keyID: keyID, arn: aws.ToString(out.KeyId), addr: crypto.PubkeyToAddress(*pub)}
	s.arn = cmp.Or(s.arn, keyID)
	return s, nil
}

// loadKMSSigner builds the KMS client cfg says (credentials from the SDK's standard chain) and
// the signer of its key.
func loadKMSSigner(ctx context.Context, cfg KMSConfig) (*KMSSigner, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if r := cfg.region(); r != "" {
		opts = append(opts, awsconfig.WithRegion(r))
	}
	ac, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("gateway: Signer.KMS: load the AWS configuration: %w", err)
	}
	if ac.Region == "" {
		return nil, errors.New("gateway: Signer.KMS.Region is not set, the KeyID is no ARN, and the AWS environment names no Region (AWS_REGION)")
	}
	client := kms.NewFromConfig(ac, func(o *kms.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
	})
	return NewKMSSigner(ctx, client, cfg.KeyID)
}

// Address is the key's account: the Keccak-256 of its public key's point, last 20 bytes.
func (s *KMSSigner) Address() common.Address { return s.addr }

// KeyARN is the key's ARN, as KMS names it.
func (s *KMSSigner) KeyARN() string { return s.arn }

// SignHash asks KMS to sign digest and returns the signature as crypto.Sign would: low S, and
// the V that recovers the key's address.
func (s *KMSSigner) SignHash(ctx context.Context, digest common.Hash) ([]byte, error) {
	out, err := s.client.Sign(ctx, &kms.SignInput{
		KeyId:            aws.String(s.arn),
		Message:          digest[:],
		MessageType:      kmstypes.MessageTypeDigest,
		SigningAlgorithm: kmstypes.SigningAlgorithmSpecEcdsaSha256,
	})
	if err != nil {
		return nil, fmt.Errorf("KMS key %s: %w", s.keyID, err)
	}
	sig, err := ethereumSignature(out.Signature, digest, s.addr)
	if err != nil {
		return nil, fmt.Errorf("KMS key %s: %w", s.keyID, err)
	}
	return sig, nil
}

// String shows the address and the key.
func (s KMSSigner) String() string {
	return fmt.Sprintf("gateway.KMSSigner{address: %s, key: %s}", s.addr.Hex(), s.arn)
}

// GoString is String (for %#v): never the client and its credentials.
func (s KMSSigner) GoString() string { return s.String() }

// Format prints String for every verb and flag.
func (s KMSSigner) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// LogValue shows the address and the key in slog records.
func (s KMSSigner) LogValue() slog.Value {
	return slog.GroupValue(slog.String("address", s.addr.Hex()), slog.String("kms_key", s.arn))
}

// MarshalText shows the address and the key (JSON, YAML, slog's text handler).
func (s KMSSigner) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// The object identifiers of an elliptic-curve public key (RFC 5480) on secp256k1 (SEC 2).
var (
	oidECPublicKey = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidSecp256k1   = asn1.ObjectIdentifier{1, 3, 132, 0, 10}
)

// parseKMSPublicKey reads KMS's public key, a DER SubjectPublicKeyInfo (RFC 5280) of an EC key
// on secp256k1, whose bit string is the uncompressed point. crypto/x509's ParsePKIXPublicKey
// knows only the NIST curves, hence encoding/asn1 with crypto/x509/pkix's types.
func parseKMSPublicKey(der []byte) (*ecdsa.PublicKey, error) {
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if rest, err := asn1.Unmarshal(der, &spki); err != nil || len(rest) > 0 {
		return nil, errors.New("the public key is not a DER SubjectPublicKeyInfo")
	}
	if !spki.Algorithm.Algorithm.Equal(oidECPublicKey) {
		return nil, fmt.Errorf("the public key's algorithm is %s, not an elliptic curve key (%s)", spki.Algorithm.Algorithm, oidECPublicKey)
	}
	var curve asn1.ObjectIdentifier
	if rest, err := asn1.Unmarshal(spki.Algorithm.Parameters.FullBytes, &curve); err != nil || len(rest) > 0 {
		return nil, errors.New("the public key does not name its curve")
	}
	if !curve.Equal(oidSecp256k1) {
		return nil, fmt.Errorf("the public key is on curve %s, not secp256k1 (%s)", curve, oidSecp256k1)
	}
	pub, err := crypto.UnmarshalPubkey(spki.PublicKey.RightAlign())
	if err != nil {
		return nil, fmt.Errorf("the public key is not an uncompressed secp256k1 point: %w", err)
	}
	return pub, nil
}

var (
	secp256k1N     = crypto.S256().Params().N
	secp256k1HalfN = new(big.Int).Rsh(secp256k1N, 1)
)

// ethereumSignature turns an ECDSA signature in DER (SEQUENCE { r INTEGER, s INTEGER }, as KMS
// answers) over digest into Ethereum's 65 bytes [R || S || V]: S is replaced by N-S when above
// N/2 (EIP-2: both are valid, Ethereum takes only the low one), and V is whichever of 0 and 1
// recovers addr.
func ethereumSignature(der []byte, digest common.Hash, addr common.Address) ([]byte, error) {
	var rs struct{ R, S *big.Int }
	if rest, err := asn1.Unmarshal(der, &rs); err != nil || len(rest) > 0 {
		return nil, errors.New("the signature is not a DER ECDSA signature")
	}
	if rs.R.Sign() <= 0 || rs.R.Cmp(secp256k1N) >= 0 || rs.S.Sign() <= 0 || rs.S.Cmp(secp256k1N) >= 0 {
		return nil, errors.New("the signature's r or s is out of range")
	}
	s := rs.S
	if s.Cmp(secp256k1HalfN) > 0 {
		s = new(big.Int).Sub(secp256k1N, s)
	}
	sig := make([]byte, crypto.SignatureLength)
	rs.R.FillBytes(sig[:32])
	s.FillBytes(sig[32:64])
	for v := byte(0); v <= 1; v++ {
		sig[crypto.RecoveryIDOffset] = v
		pub, err := crypto.SigToPub(digest[:], sig)
		if err == nil && crypto.PubkeyToAddress(*pub) == addr {
			return sig, nil
		}
	}
	return nil, fmt.Errorf("the signature recovers to neither V: it is not %s's over this digest", addr)
}
