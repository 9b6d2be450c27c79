package sfv

import "testing"

func TestStructuredFieldListsParseAsRFC9651Says(t *testing.T) {
	valid := []string{
		`"default";r=0;t=30`,
		`a, b;x=1, "c";y="z\"q\\"`,
		`1, -2, 3.5, -0.25, ?1, ?0, :AQID:, tok/en:x`,
		`(1 2 "x");p=1, ("a" b);q`,
		`  a  ,  b  `,
		`*star;k=*v`,
		`123456789012345`,
		`123456789012.123`,
	}
	for _, v := range valid {
		if _, ok := ParseList(v); !ok {
			t.Errorf("ParseList(%q) failed", v)
		}
	}
	invalid := []string{
		`a,`,
		`a,,b`,
		`"unterminated`,
		`"bad \n escape"`,
		`1234567890123456`,
		`1234567890123.1`,
		`1.1234`,
		`1.`,
		`a;B=1`,
		`a b`,
		`:not base64!:`,
		`?2`,
		`(1 2`,
		`@1700000000`,
		`%"display"`,
		"a;x=\"\x01\"",
	}
	for _, v := range invalid {
		if _, ok := ParseList(v); ok {
			t.Errorf("ParseList(%q) succeeded", v)
		}
	}
	list, _ := ParseList(`"n";q=100;w=60, x;y, 2.5`)
	if len(list) != 3 || list[0].Value.Str != "n" || list[1].Value.Kind != Token || list[2].Value.Dec != 2.5 {
		t.Fatalf("ParseList = %+v", list)
	}
	if q, _ := list[0].Param("q"); q.Int != 100 {
		t.Fatalf("q = %+v", q)
	}
	if y, ok := list[1].Param("y"); !ok || y.Kind != Boolean || !y.Bool {
		t.Fatalf("y = %+v, %v", y, ok)
	}
}

func TestStructuredFieldDictionariesParseAsRFC9651Says(t *testing.T) {
	d, ok := ParseDictionary(`limit=100, remaining=0, reset=30, flag, limit=7`)
	if !ok || len(d) != 4 {
		t.Fatalf("ParseDictionary = %+v, %v", d, ok)
	}
	if d[0].Key != "limit" || d[0].Item.Value.Int != 7 {
		t.Fatalf("a repeated key must overwrite in place: %+v", d[0])
	}
	if d[3].Key != "flag" || d[3].Item.Value.Kind != Boolean || !d[3].Item.Value.Bool {
		t.Fatalf("a bare key is true: %+v", d[3])
	}
	for _, v := range []string{`Limit=1`, `a=1,`, `a=`, `"a"=1`} {
		if _, ok := ParseDictionary(v); ok {
			t.Errorf("ParseDictionary(%q) succeeded", v)
		}
	}
}

// The rate-limit draft's examples, as the relayer's own RateLimit-Policy fields look.
func TestTheRateLimitDraftsExamplesParse(t *testing.T) {
	items, ok := ParseList(`"peruser";q=65535;qu="content-bytes";w=10;pk=:c2RmakxKVU9VSA==:`)
	if !ok || len(items) != 1 || items[0].Value.Kind != String || items[0].Value.Str != "peruser" {
		t.Fatalf("got %+v, %v", items, ok)
	}
	if q, _ := items[0].Param("q"); q.Kind != Integer || q.Int != 65535 {
		t.Errorf("q = %+v", q)
	}
	if qu, _ := items[0].Param("qu"); qu.Kind != String || qu.Str != "content-bytes" {
		t.Errorf("qu = %+v", qu)
	}
	if pk, _ := items[0].Param("pk"); pk.Kind != Bytes || pk.Str != "sdfjLJUOUH" {
		t.Errorf("pk = %+v", pk)
	}
	items, ok = ParseList(`"permin";q=50;w=60,"perhr";q=1000;w=3600`)
	if !ok || len(items) != 2 || items[1].Value.Str != "perhr" {
		t.Fatalf("got %+v, %v", items, ok)
	}
	for _, bad := range []string{`"a";q=1,`, `"a";Q=1`, `"a" "b"`, `"a;q=1`, `"a";q=`} {
		if _, ok := ParseList(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
