package devchain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// The fixtures are inputs the public SDK (0.4.3, node-tfhe) encrypted and proved against the
// development public key; the expected handles are what the SDK's own FhevmHandle.fromZKProof
// computed for them with the ACL below and host chain 1337.
var sdkInputs = []struct {
	file    string
	types   []byte
	handles []string
}{
	{"sdk_input_bool_u8_u64.bin", []byte{0, 2, 5}, []string{
		"0xe0f9cb45af93adeab6c8d0521079817c70aab95b860000000000000005390000",
		"0x8a8a30884e792f854cba887182e08a5595ad62ac2c0100000000000005390200",
		"0x48ded5fcdf2654fe5cb8f6ad9bf951c21835dd983b0200000000000005390500",
	}},
	{"sdk_input_u32.bin", []byte{4}, []string{
		"0x3e6a6d4dfaa08c821df656f502f448d1a9984d39d00000000000000005390400",
	}},
	{"sdk_input_u8_u8.bin", []byte{2, 2}, []string{
		"0x2e2213f557d35af7dc23bebeb6d4f0c4d5d9f14e640000000000000005390200",
		"0x5d86229a7b56848f86872077b6daa56a4d38b894760100000000000005390200",
	}},
}

var sdkFixtureACL = common.HexToAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")

func TestTheCoprocessorsComputeTheHandlesThePublicSDKComputes(t *testing.T) {
	for _, in := range sdkInputs {
		t.Run(in.file, func(t *testing.T) {
			ct, err := os.ReadFile(filepath.Join("testdata", in.file))
			if err != nil {
				t.Fatal(err)
			}
			types, err := InputFheTypes(ct)
			if err != nil {
				t.Fatalf("InputFheTypes: %v", err)
			}
			if string(types) != string(in.types) {
				t.Fatalf("types = %v, want %v", types, in.types)
			}
			handles, ok := SDKInputHandles(ct, sdkFixtureACL, 1337)
			if !ok {
				t.Fatal("SDKInputHandles did not recognise the SDK's input")
			}
			if len(handles) != len(in.handles) {
				t.Fatalf("%d handles, want %d", len(handles), len(in.handles))
			}
			for i, h := range handles {
				if got := hexutil.Encode(h[:]); got != in.handles[i] {
					t.Errorf("handle %d = %s, want %s", i, got, in.handles[i])
				}
			}
		})
	}
}

func TestAnInputThatIsNotAnSDKListGetsNoSDKHandles(t *testing.T) {
	ct, err := os.ReadFile(filepath.Join("testdata", sdkInputs[0].file))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":                  nil,
		"a few bytes":            {0x0a, 0x0b, 0x0c},
		"the header alone":       ct[:128],
		"a list cut short":       ct[:len(ct)-3],
		"a list with bytes more": append(append([]byte(nil), ct...), 0),
	} {
		if _, ok := SDKInputHandles(b, sdkFixtureACL, 1337); ok {
			t.Errorf("%s: recognised as an SDK input", name)
		}
	}
}
