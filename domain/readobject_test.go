package domain

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// decoderObject is readObject as encoding/json's Decoder reads an object, token by token: the
// oracle the one-pass walker is checked against.
func decoderObject(raw []byte) (members []jsonMember, repeats []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		if slices.ContainsFunc(members, func(m jsonMember) bool { return m.name == name }) {
			if !slices.Contains(repeats, name) {
				repeats = append(repeats, name)
			}
			continue
		}
		members = append(members, jsonMember{name: name, value: v})
	}
	return members, repeats, true
}

// checkReadObject checks readObject against decoderObject on raw (valid JSON).
func checkReadObject(t *testing.T, raw []byte) {
	t.Helper()
	obj, ok := readObject("", raw, []string{"a", "b"})
	members, repeats, want := decoderObject(raw)
	if ok != want {
		t.Fatalf("%s: readObject ok=%v, the decoder's %v", raw, ok, want)
	}
	if !ok {
		return
	}
	if !slices.EqualFunc(obj.members, members, func(a, b jsonMember) bool { return a.name == b.name && bytes.Equal(a.value, b.value) }) {
		t.Fatalf("%s: members %q, the decoder's %q", raw, obj.members, members)
	}
	if !slices.Equal(obj.repeats, repeats) {
		t.Fatalf("%s: repeats %q, the decoder's %q", raw, obj.repeats, repeats)
	}
	for _, m := range members {
		if known := m.name == "a" || m.name == "b"; known == slices.Contains(obj.unknown, m.name) {
			t.Fatalf("%s: %q is known %v, in unknown %v", raw, m.name, known, obj.unknown)
		}
	}
}

var readObjectSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, "{\n\t\"a\" :\r 1 ,\"b\": \"x\" }",
	`{"a":"}","b":"\"{["}`, `{"a":{"x":[1,{"y":"]}"}],"z":{}},"b":[[],[{}]]}`,
	`{"a":1,"a":2,"b":3,"a":4}`, `{"\u0061":1,"a":2}`, `{"a\"b":true,"c\\":null}`,
	`{"a":-1.5e+3,"b":false,"c":null}`, `{"é":"ü","b":"\ud83d\ude00"}`, `[1]`, `"x"`, `7`,
}

func TestReadObjectReadsMembersAsEncodingJSONsDecoderDoes(t *testing.T) {
	for _, s := range readObjectSeeds {
		checkReadObject(t, []byte(s))
	}
}

func FuzzReadObject(f *testing.F) {
	for _, s := range readObjectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // readObject reads valid JSON only: startParse checks it first
		}
		checkReadObject(t, bytes.TrimSpace(raw))
	})
}

// BenchmarkReadObject reads an input proof's body, its ciphertext 2 KiB (as the SDK's are a few
// KiB), with readObject and, in the same run, with encoding/json's Decoder as readObject read
// bodies before (decoderObject), and the whole ParseInputProof.
func BenchmarkReadObject(b *testing.B) {
	body := []byte(`{"contractChainId":1337,"contractAddress":"0x0000000000000000000000000000000000000002","userAddress":"0x0000000000000000000000000000000000000003","ciphertextWithInputVerification":"` +
		string(bytes.Repeat([]byte("0b"), 2048)) + `","extraData":"0x00"}`)
	b.Run("one-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := readObject("", body, inputProofFields); !ok {
				b.Fatal("not an object")
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := decoderObject(body); !ok {
				b.Fatal("not an object")
			}
		}
	})
	b.Run("ParseInputProof", func(b *testing.B) {
		cfg := ValidationConfig{HostChainIDs: []uint64{1337}}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseInputProof(body, cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
