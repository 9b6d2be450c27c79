package gateway_test

import (
	"bytes"
	"crypto/rand"
	"encoding/asn1"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/gateway"
	"relayer/workers/gateway/kmstest"
)

var (
	secp256k1N     = crypto.S256().Params().N
	secp256k1HalfN = new(big.Int).Rsh(secp256k1N, 1)
)

// fundKMS gives addr ether on the shared chain, from which it pays its transactions.
func fundKMS(t *testing.T, addr common.Address) {
	t.Helper()
	if err := shared.Fund(testContext(t), addr, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
}

// Every signature a KMS key makes, however many and however concurrent, recovers to the key's
// address, has a low s, and is one KMS itself verifies as its key's.
func TestAKMSKeysSignaturesRecoverToItsAddressWithALowSAndKMSVerifiesThem(t *testing.T) {
	t.Parallel()
	e := kmstest.Start(t)
	id, arn := e.CreateKey(t)
	ctx := testContext(t)
	s, err := gateway.NewKMSSigner(ctx, e.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.KeyARN() != arn {
		t.Errorf("KeyARN %s, want %s", s.KeyARN(), arn)
	}
	// The same key by its ARN and by an alias is the same account.
	for _, name := range []string{arn, e.CreateAlias(t, "relayer-"+id[:8], id)} {
		o, err := gateway.NewKMSSigner(ctx, e.Client, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if o.Address() != s.Address() {
			t.Errorf("the key by %s is %s, by its id %s", name, o.Address(), s.Address())
		}
	}

	// The emulator's raw signatures have a high s about half the time: the normalisation is
	// exercised, not assumed.
	high := 0
	for range 40 {
		d := randomHash(t)
		out, err := e.Client.Sign(ctx, &kms.SignInput{KeyId: aws.String(id), Message: d[:], MessageType: kmstypes.MessageTypeDigest, SigningAlgorithm: kmstypes.SigningAlgorithmSpecEcdsaSha256})
		if err != nil {
			t.Fatal(err)
		}
		var rs struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(out.Signature, &rs); err != nil {
			t.Fatal(err)
		}
		if rs.S.Cmp(secp256k1HalfN) > 0 {
			high++
		}
	}
	if high == 0 {
		t.Fatal("none of 40 raw KMS signatures had a high s: the normalisation is not exercised")
	}

	const n, workers = 200, 8
	digests := make([]common.Hash, n)
	sigs := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				digests[i] = randomHash(t)
				sigs[i], errs[i] = s.SignHash(ctx, digests[i])
			}
		})
	}
	wg.Wait()
	vs := map[byte]int{}
	for i, sig := range sigs {
		if errs[i] != nil {
			t.Fatalf("signature %d: %v", i, errs[i])
		}
		if len(sig) != crypto.SignatureLength || sig[64] > 1 {
			t.Fatalf("signature %d is %d bytes with V %d, want 65 with V 0 or 1", i, len(sig), sig[len(sig)-1])
		}
		r, sv := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
		if sv.Cmp(secp256k1HalfN) > 0 {
			t.Fatalf("signature %d has a high s", i)
		}
		if !crypto.ValidateSignatureValues(sig[64], r, sv, true) {
			t.Fatalf("signature %d is not a valid homestead signature", i)
		}
		pub, err := crypto.SigToPub(digests[i][:], sig)
		if err != nil || crypto.PubkeyToAddress(*pub) != s.Address() {
			t.Fatalf("signature %d recovers to %v (%v), want %s", i, pub, err, s.Address())
		}
		vs[sig[64]]++
		if i%20 == 0 { // KMS checks a sample: the signature is its key's, not only self-consistent
			der, _ := asn1.Marshal(struct{ R, S *big.Int }{r, sv})
			out, err := e.Client.Verify(ctx, &kms.VerifyInput{KeyId: aws.String(id), Message: digests[i][:], MessageType: kmstypes.MessageTypeDigest,
				Signature: der, SigningAlgorithm: kmstypes.SigningAlgorithmSpecEcdsaSha256})
			if err != nil || !out.SignatureValid {
				t.Fatalf("KMS does not verify signature %d as its key's: %v", i, err)
			}
		}
	}
	t.Logf("%d signatures by %s, recovery ids %v; %d of 40 raw KMS signatures had a high s", n, s.Address(), vs, high)
}

func randomHash(t *testing.T) common.Hash {
	var h common.Hash
	if _, err := rand.Read(h[:]); err != nil {
		t.Error(err)
	}
	return h
}

func TestAKMSKeyThatIsNotSecp256k1IsRefused(t *testing.T) {
	t.Parallel()
	e := kmstest.Start(t)
	ctx := testContext(t)
	out, err := e.Client.CreateKey(ctx, &kms.CreateKeyInput{KeySpec: kmstypes.KeySpecEccNistP256, KeyUsage: kmstypes.KeyUsageTypeSignVerify})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(out.KeyMetadata.KeyId)
	if _, err := gateway.NewKMSSigner(ctx, e.Client, id); err == nil || !strings.Contains(err.Error(), "ECC_NIST_P256") || !strings.Contains(err.Error(), id) {
		t.Fatalf("a P-256 key: %v, want an error naming the key and its spec", err)
	}
	if _, err := gateway.NewKMSSigner(ctx, e.Client, "alias/no-such-key"); err == nil || !strings.Contains(err.Error(), "alias/no-such-key") {
		t.Fatalf("a key that does not exist: %v", err)
	}
}

// The adapter signs its transactions with a KMS key configured as an operator would (the key's
// ARN and the emulator's endpoint; credentials from the environment), they are mined as the
// key's, and neither the AWS secret nor anything else secret shows in the logs, the errors or
// any printing of the configuration and the signer. Not parallel: it sets the AWS variables.
func TestAKMSKeyFromTheConfigurationSignsTheAdaptersTransactionsWithoutShowingCredentials(t *testing.T) {
	e := kmstest.Start(t)
	_, arn := e.CreateKey(t)
	secret := kmstest.UseCredentials(t)
	ctx := testContext(t)

	cfg := baseConfig(shared)
	cfg.Signer = gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: arn, Endpoint: e.Endpoint}} // the Region is the ARN's
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	signer, err := gateway.LoadSigner(ctx, cfg.Signer)
	if err != nil {
		t.Fatal(err)
	}
	fundKMS(t, signer.Address())
	ad, err := gateway.Dial(ctx, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer ad.Close()
	if ad.Address() != signer.Address() {
		t.Fatalf("the adapter signs as %s, the key is %s", ad.Address(), signer.Address())
	}
	var hashes []common.Hash
	for i := range 3 {
		p := mustPrepare(t, ctx, ad, silentRequest(fmt.Sprintf("%s#%d", t.Name(), i)))
		rec, err := ad.Broadcast(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, rec.TxHash)
	}
	for _, h := range hashes {
		tx, _, err := shared.Client().TransactionByHash(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		from, err := types.Sender(types.LatestSignerForChainID(shared.ChainID()), tx)
		if err != nil || from != signer.Address() {
			t.Fatalf("transaction %s is from %s (%v), want the KMS key's %s", h, from, err, signer.Address())
		}
	}

	// Failures name the key, never the credentials.
	_, missing := gateway.LoadSigner(ctx, gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "alias/missing", Region: kmstest.Region, Endpoint: e.Endpoint}})
	if missing == nil || !strings.Contains(missing.Error(), "alias/missing") {
		t.Errorf("a missing key: %v", missing)
	}
	_, noRegion := gateway.LoadSigner(ctx, gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "alias/relayer", Endpoint: e.Endpoint}})
	if noRegion == nil || !strings.Contains(noRegion.Error(), "Signer.KMS.Region") {
		t.Errorf("no Region anywhere: %v", noRegion)
	}

	js, _ := json.Marshal(struct{ S gateway.Signer }{signer})
	logger.Info("signer", "signer", signer, "config", cfg.Signer)
	printed := fmt.Sprintf("%v %+v %#v %s %v %+v %#v %s", signer, signer, signer, signer, cfg, cfg, cfg.Signer, js)
	for what, out := range map[string]string{"logs": logs.String(), "printing": printed, "errors": fmt.Sprint(missing, noRegion)} {
		if strings.Contains(out, secret) || strings.Contains(out, secret[:16]) {
			t.Errorf("the AWS secret access key shows in the %s:\n%s", what, out)
		}
	}
	if !strings.Contains(printed, signer.Address().Hex()) || !strings.Contains(printed, arn) {
		t.Errorf("the signer does not print as its address and key: %s", printed)
	}
}

func TestAKMSSignerConfigurationIsCheckedFieldByFieldAndExclusive(t *testing.T) {
	t.Parallel()
	key := strings.Repeat("ab", 32)
	for _, c := range []struct {
		name string
		cfg  gateway.SignerConfig
		want string // "" for valid
	}{
		{"a key id", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "1234abcd-12ab-34cd-56ef-1234567890ab", Region: "eu-west-1"}}, ""},
		{"a multi-Region key", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "mrk-1234abcd12ab34cd56ef1234567890ab"}}, ""},
		{"an ARN, no Region", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "arn:aws:kms:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"}}, ""},
		{"an alias and an endpoint", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "alias/relayer-1", Region: "us-gov-west-1", Endpoint: "https://kms.example.internal"}}, ""},
		{"no key id", gateway.SignerConfig{KMS: gateway.KMSConfig{Region: "eu-west-1"}}, "Signer.KMS.KeyID is not set"},
		{"a private key as key id", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "0x" + key}}, "Signer.KMS.KeyID holds what looks like a private key"},
		{"a key id of nothing", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "my key"}}, "Signer.KMS.KeyID is neither"},
		{"an S3 ARN", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "arn:aws:s3:::bucket/key"}}, "Signer.KMS.KeyID is an ARN but not a KMS key's"},
		{"a bad Region", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "alias/r", Region: "Europe"}}, "Signer.KMS.Region"},
		{"an ARN of another Region", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "arn:aws:kms:us-east-2:111122223333:alias/r", Region: "eu-west-1"}}, "Signer.KMS.Region is eu-west-1 but the KeyID's ARN is in us-east-2"},
		{"an endpoint with credentials", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "alias/r", Region: "eu-west-1", Endpoint: "https://AKID:hunter2@kms.example"}}, "Signer.KMS.Endpoint carries credentials"},
		{"an endpoint of another scheme", gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: "alias/r", Endpoint: "ftp://kms.example"}}, "Signer.KMS.Endpoint must be an http or https URL"},
		{"KMS and a key variable", gateway.SignerConfig{KeyEnv: "RELAYER_SIGNER_KEY", KMS: gateway.KMSConfig{KeyID: "alias/r"}}, "Signer.KMS and Signer.KeyEnv are both set"},
		{"KMS and a keystore", gateway.SignerConfig{KeystoreFile: "/k.json", PasswordFile: "/pw", KMS: gateway.KMSConfig{KeyID: "alias/r"}}, "Signer.KMS and Signer.KeystoreFile are both set"},
	} {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want a problem saying %q", c.name, err, c.want)
		}
		// gateway.Config reports the same under its field "signer".
		if c.want != "" {
			if err := (gateway.Config{Signer: c.cfg}).Validate(); err == nil || !strings.Contains(err.Error(), "signer: "+c.want) {
				t.Errorf("%s: Config.Validate: %v", c.name, err)
			}
		}
		all := fmt.Sprintf("%v %+v %#v %s", err, c.cfg, c.cfg, c.cfg)
		if strings.Contains(all, key) || strings.Contains(all, "hunter2") {
			t.Errorf("%s: a secret shows: %s", c.name, all)
		}
	}
}
