package ratelimit

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a clock tests move by hand; safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func fixed(u float64) func() float64 { return func() float64 { return u } }

func ptr(v int) *int { return &v }

// cfgWith returns a valid config with the given base limits and no class overrides.
func cfgWith(concurrency, rolling, windowSeconds int) Config {
	c := DefaultConfig()
	c.ConcurrencyLimit, c.RollingLimit, c.RollingWindowSeconds = concurrency, rolling, windowSeconds
	c.Read = Override{}
	return c
}

func mustNew(t testing.TB, cfg Config, opts ...Option) *Limiter {
	t.Helper()
	l, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A small parser of RFC 8941 structured-field Lists (enough of it to check what the limiter
// sends: Strings, Tokens, Integers, Booleans, Byte Sequences, Parameters; no Inner Lists, no
// Decimals).

type sfToken string

type sfParam struct {
	key string
	val any
}

type sfItem struct {
	val    any
	params []sfParam
}

func (it sfItem) param(key string) (any, bool) {
	for _, p := range it.params {
		if p.key == key {
			return p.val, true
		}
	}
	return nil, false
}

type sfParser struct {
	s string
	i int
}

func parseSFList(s string) ([]sfItem, error) {
	p := &sfParser{s: s}
	p.skipSP()
	var out []sfItem
	for p.i < len(p.s) {
		it, err := p.item()
		if err != nil {
			return nil, err
		}
		out = append(out, it)
		p.skipOWS()
		if p.i == len(p.s) {
			return out, nil
		}
		if p.s[p.i] != ',' {
			return nil, fmt.Errorf("at %d: expected ',' after a member, got %q", p.i, p.s[p.i])
		}
		p.i++
		p.skipOWS()
		if p.i == len(p.s) {
			return nil, errors.New("trailing comma")
		}
	}
	return out, nil
}

func (p *sfParser) skipSP() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sfParser) item() (sfItem, error) {
	v, err := p.bare()
	if err != nil {
		return sfItem{}, err
	}
	it := sfItem{val: v}
	for p.i < len(p.s) && p.s[p.i] == ';' {
		p.i++
		p.skipSP()
		k, err := p.key()
		if err != nil {
			return sfItem{}, err
		}
		var pv any = true
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			if pv, err = p.bare(); err != nil {
				return sfItem{}, err
			}
		}
		for _, q := range it.params {
			if q.key == k {
				return sfItem{}, fmt.Errorf("duplicate parameter %q", k)
			}
		}
		it.params = append(it.params, sfParam{k, pv})
	}
	return it, nil
}

func isLcalpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool   { return isLcalpha(c) || (c >= 'A' && c <= 'Z') }
func isTchar(c byte) bool {
	return isAlpha(c) || isDigit(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *sfParser) key() (string, error) {
	start := p.i
	if p.i >= len(p.s) || !(isLcalpha(p.s[p.i]) || p.s[p.i] == '*') {
		return "", fmt.Errorf("at %d: a key must start with a lowercase letter or '*'", p.i)
	}
	for p.i < len(p.s) && (isLcalpha(p.s[p.i]) || isDigit(p.s[p.i]) || strings.IndexByte("_-.*", p.s[p.i]) >= 0) {
		p.i++
	}
	return p.s[start:p.i], nil
}

func (p *sfParser) bare() (any, error) {
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end: expected a bare item")
	}
	switch c := p.s[p.i]; {
	case c == '-' || isDigit(c):
		return p.integer()
	case c == '"':
		return p.str()
	case c == '?':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1') {
			p.i += 2
			return p.s[p.i-1] == '1', nil
		}
		return nil, fmt.Errorf("at %d: bad boolean", p.i)
	case c == ':':
		end := strings.IndexByte(p.s[p.i+1:], ':')
		if end < 0 {
			return nil, errors.New("unterminated byte sequence")
		}
		b, err := base64.StdEncoding.DecodeString(p.s[p.i+1 : p.i+1+end])
		if err != nil {
			return nil, err
		}
		p.i += end + 2
		return b, nil
	case isAlpha(c) || c == '*':
		start := p.i
		for p.i < len(p.s) && (isTchar(p.s[p.i]) || p.s[p.i] == ':' || p.s[p.i] == '/') {
			p.i++
		}
		return sfToken(p.s[start:p.i]), nil
	default:
		return nil, fmt.Errorf("at %d: unexpected %q", p.i, c)
	}
}

func (p *sfParser) integer() (int64, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	if p.i == digits || p.i-digits > 15 {
		return 0, fmt.Errorf("at %d: an integer needs 1 to 15 digits", start)
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		return 0, fmt.Errorf("at %d: decimals are not expected here", p.i)
	}
	return strconv.ParseInt(p.s[start:p.i], 10, 64)
}

func (p *sfParser) str() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\\') {
				return "", errors.New("bad escape in string")
			}
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", fmt.Errorf("non-printable byte %#x in string", c)
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("unterminated string")
}

func TestTheTestsStructuredFieldParserReadsTheDraftsExamples(t *testing.T) {
	items, err := parseSFList(`"peruser";q=65535;qu="content-bytes";w=10;pk=:c2RmakxKVU9VSA==:`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].val != "peruser" {
		t.Fatalf("got %+v", items)
	}
	if q, _ := items[0].param("q"); q != int64(65535) {
		t.Errorf("q = %v", q)
	}
	if qu, _ := items[0].param("qu"); qu != "content-bytes" {
		t.Errorf("qu = %v", qu)
	}
	items, err = parseSFList(`"permin";q=50;w=60,"perhr";q=1000;w=3600`)
	if err != nil || len(items) != 2 || items[1].val != "perhr" {
		t.Fatalf("got %+v, %v", items, err)
	}
	for _, bad := range []string{`"a";q=1,`, `"a";Q=1`, `"a" "b"`, `"a;q=1`, `"a";q=1.5`, `"a";q=`} {
		if _, err := parseSFList(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
