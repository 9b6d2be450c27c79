package eventstore

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonCases are inputs on the edges of the grammar, for the unit test and as the fuzz seeds.
var jsonCases = []string{
	``, ` `, `null`, ` null `, `nul`, `nulls`, `true`, `false`, `tru`, `falsey`, `True`,
	`0`, `-0`, `01`, `-01`, `1`, `-`, `--1`, `+1`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1e-5`, `1E5`, `1.5e05`,
	`123456789012345678901234567890`, `1 2`, `-a`, `0x1`, `1.e5`, `2.0e`, `-0.0e-0`,
	`""`, `"`, `"abc`, `"a\"b"`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`,
	`"\u12"`, `"\u123"`, `"\ud800"`, `"\x"`, `"\'"`, "\"\t\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"",
	"\"é\"", `"abcdefghijklmnopqrstuvwxyz"`, `"abcdefgh\"ijklmnop"`, `"abcdefghijklmno\`, "\"abcdefghijklmn\x01\"",
	`{}`, `{`, `}`, `{ }`, `{"a":1}`, `{"a" : 1 , "b":[true,false,null]}`, `{"a":1,}`, `{,"a":1}`, `{"a"}`,
	`{"a":}`, `{"a" 1}`, `{1:2}`, `{"a":1 "b":2}`, `{"a":{"b":{"c":[]}}}`, `{"a":1]`, `[}`,
	`[]`, `[`, `]`, `[ ]`, `[1,2,3]`, `[1,]`, `[,1]`, `[1 2]`, `[[[]]]`, `[[[]]`, `[]]`, `[1]x`, `[1] `,
	" \t\r\n[ \t\r\n1 \t\r\n] \t\r\n", "\f1", "\v1", "1\x00",
	`{"jobId":"1a2f811a-a942-4156-ae84-206bedbc9f2b","at":"2026-03-01T12:00:23.897037203Z"}`,
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range jsonCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", c, got, want)
		}
	}
	// Nesting: encoding/json refuses more than 10000 levels, and so must validJSON, for arrays,
	// objects and a mix of both.
	for _, depth := range []int{1, 63, 64, 65, 127, 128, 129, 1000, maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1, 3 * maxJSONDepth} {
		arrays := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		objects := strings.Repeat(`{"k":`, depth) + "0" + strings.Repeat("}", depth)
		mixed := strings.Repeat(`[{"k":`, depth/2+1) + "0" + strings.Repeat("}]", depth/2+1)
		unclosed := strings.Repeat("[", depth)
		wrong := strings.Repeat("[", depth) + "}" + strings.Repeat("]", depth-1)
		for _, c := range []string{arrays, objects, mixed, unclosed, wrong} {
			if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
				t.Errorf("depth %d, %.20q...: validJSON = %v, json.Valid says %v", depth, c, got, want)
			}
		}
	}
}

// FuzzValidJSON holds validJSON to json.Valid on arbitrary bytes. Run it with
// go test -run '^$' -fuzz FuzzValidJSON ./eventstore/
func FuzzValidJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":[1,{"b":"c\u0041\n"},-2.5e+3,true,false,null],"d":{}}`))
	f.Add([]byte(strings.Repeat("[", 130) + strings.Repeat("]", 130)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

// BenchmarkValidJSON compares validJSON with json.Valid on a typical event's data.
func BenchmarkValidJSON(b *testing.B) {
	data := []byte(`{"jobId":"1a2f811a-a942-4156-ae84-206bedbc9f2b","at":"2026-03-01T12:00:23.897037203Z","kind":"input-proof","status":"processing",` +
		`"contentHash":"0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a089f86d081884c7d659a2feaa0c55ad015",` +
		`"txHash":"0x2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae","gatewayRequestId":"gw-123456789",` +
		`"attempts":[1,2,3],"fee":{"amount":125000.5,"currency":"EUR"},"final":true,"note":null,"label":"relayed to the gateway"}`)
	if !json.Valid(data) {
		b.Fatal("the sample is not JSON")
	}
	for _, c := range []struct {
		name  string
		valid func([]byte) bool
	}{{"validJSON", validJSON}, {"encoding-json", json.Valid}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if !c.valid(data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
