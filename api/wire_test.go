package api

import (
	"encoding/json"
	"testing"

	"relayer/domain"
)

func TestInputProofSignaturesReachClientsZeroXPrefixedEvenWhenRecordedWithout(t *testing.T) {
	sig := "11" // grown below to 65 bytes
	for len(sig) < 130 {
		sig += "22"
	}
	for name, recorded := range map[string]string{
		"recorded without the prefix (earlier stores)": `{"accepted":true,"handles":["0x01"],"signatures":["` + sig + `","` + sig + `"],"extraData":"0x00"}`,
		"recorded with it": `{"accepted":true,"handles":["0x01"],"signatures":["0x` + sig + `","0x` + sig + `"],"extraData":"0x00"}`,
	} {
		out, ok := inputProofWire([]byte(recorded))
		if !ok {
			t.Fatalf("%s: not read", name)
		}
		var res domain.InputProofResult
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Signatures) != 2 || res.Signatures[0] != "0x"+sig || res.Signatures[1] != "0x"+sig {
			t.Errorf("%s: signatures %v, want both 0x-prefixed", name, res.Signatures)
		}
		if !res.Accepted || res.ExtraData != "0x00" || len(res.Handles) != 1 {
			t.Errorf("%s: the rest changed: %s", name, out)
		}
	}
	if out, ok := inputProofWire([]byte(`{"accepted":false,"handles":[],"signatures":[],"extraData":"0x"}`)); !ok || string(out) != `{"accepted":false,"handles":[],"signatures":[],"extraData":"0x"}` {
		t.Errorf("a rejected proof's result changed: %s", out)
	}
}
