package upstream

import (
	"encoding/base64"
	"strings"
)

// A small parser for HTTP Structured Field Values (RFC 9651): Lists and Dictionaries of Items and
// Inner Lists with Parameters. It follows the RFC's parsing algorithms, including their failure
// rules (any failure means the whole field is ignored). Dates (@...) and Display Strings (%"...")
// are not supported: a field using them fails to parse, which for the rate-limit fields only
// means the hint is ignored.

type sfKind uint8

const (
	sfInteger sfKind = iota + 1
	sfDecimal
	sfString
	sfToken
	sfBytes
	sfBoolean
	sfInnerList
)

type sfValue struct {
	kind  sfKind
	num   int64   // sfInteger
	dec   float64 // sfDecimal
	str   string  // sfString, sfToken, sfBytes (decoded)
	bool  bool    // sfBoolean
	inner []sfItem
}

type sfParam struct {
	key string
	val sfValue
}

type sfItem struct {
	val    sfValue
	params []sfParam
}

// param returns the value of the parameter key.
func (it sfItem) param(key string) (sfValue, bool) {
	for _, p := range it.params {
		if p.key == key {
			return p.val, true
		}
	}
	return sfValue{}, false
}

type sfDictMember struct {
	key  string
	item sfItem
}

type sfParser struct {
	s   string
	pos int
}

// joinFieldLines combines a field's lines as RFC 9651 §4.2 asks: joined with ", ".
func joinFieldLines(lines []string) string { return strings.Join(lines, ", ") }

func parseSFList(input string) ([]sfItem, bool) {
	return parseSFMembers(input, func(p *sfParser, out []sfItem) ([]sfItem, bool) {
		it, ok := p.itemOrInnerList()
		return append(out, it), ok
	})
}

func parseSFDictionary(input string) ([]sfDictMember, bool) {
	return parseSFMembers(input, func(p *sfParser, out []sfDictMember) ([]sfDictMember, bool) {
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		var it sfItem
		if !p.eof() && p.s[p.pos] == '=' {
			p.pos++
			if it, ok = p.itemOrInnerList(); !ok {
				return nil, false
			}
		} else {
			params, ok := p.params()
			if !ok {
				return nil, false
			}
			it = sfItem{val: sfValue{kind: sfBoolean, bool: true}, params: params}
		}
		return setMember(out, sfDictMember{key: key, item: it}), true
	})
}

// parseSFMembers is the loop a List and a Dictionary share: leading spaces, then members, each
// read by member and added to out, separated by commas with optional white space around them.
// Anything else between members, or a trailing comma, fails.
func parseSFMembers[M any](input string, member func(p *sfParser, out []M) ([]M, bool)) ([]M, bool) {
	p := &sfParser{s: input}
	p.skipSP()
	var out []M
	for !p.eof() {
		var ok bool
		if out, ok = member(p, out); !ok {
			return nil, false
		}
		p.skipOWS()
		if p.eof() {
			return out, true
		}
		if p.s[p.pos] != ',' {
			return nil, false
		}
		p.pos++
		p.skipOWS()
		if p.eof() { // trailing comma
			return nil, false
		}
	}
	return out, true
}

func (m sfDictMember) memberKey() string { return m.key }
func (m sfParam) memberKey() string      { return m.key }

// setMember adds m to the members of a Dictionary or the Parameters of an Item: a repeated key
// overwrites the earlier value, in its place.
func setMember[M interface{ memberKey() string }](out []M, m M) []M {
	for i := range out {
		if out[i].memberKey() == m.memberKey() {
			out[i] = m
			return out
		}
	}
	return append(out, m)
}

func (p *sfParser) eof() bool { return p.pos >= len(p.s) }

func (p *sfParser) skipSP() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *sfParser) skipOWS() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *sfParser) itemOrInnerList() (sfItem, bool) {
	if !p.eof() && p.s[p.pos] == '(' {
		return p.innerList()
	}
	return p.item()
}

// item parses an item: a bare item and its parameters.
func (p *sfParser) item() (sfItem, bool) {
	v, ok := p.bareItem()
	if !ok {
		return sfItem{}, false
	}
	params, ok := p.params()
	if !ok {
		return sfItem{}, false
	}
	return sfItem{val: v, params: params}, true
}

func (p *sfParser) innerList() (sfItem, bool) {
	p.pos++ // '('
	var items []sfItem
	for !p.eof() {
		p.skipSP()
		if p.eof() {
			break
		}
		if p.s[p.pos] == ')' {
			p.pos++
			params, ok := p.params()
			if !ok {
				return sfItem{}, false
			}
			return sfItem{val: sfValue{kind: sfInnerList, inner: items}, params: params}, true
		}
		it, ok := p.item()
		if !ok {
			return sfItem{}, false
		}
		items = append(items, it)
		if p.eof() || (p.s[p.pos] != ' ' && p.s[p.pos] != ')') {
			return sfItem{}, false
		}
	}
	return sfItem{}, false
}

func (p *sfParser) params() ([]sfParam, bool) {
	var out []sfParam
	for !p.eof() && p.s[p.pos] == ';' {
		p.pos++
		p.skipSP()
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		val := sfValue{kind: sfBoolean, bool: true}
		if !p.eof() && p.s[p.pos] == '=' {
			p.pos++
			if val, ok = p.bareItem(); !ok {
				return nil, false
			}
		}
		out = setMember(out, sfParam{key: key, val: val})
	}
	return out, true
}

func (p *sfParser) key() (string, bool) {
	if p.eof() {
		return "", false
	}
	c := p.s[p.pos]
	if !(c >= 'a' && c <= 'z') && c != '*' {
		return "", false
	}
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if (c >= 'a' && c <= 'z') || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*' {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos], true
}

func (p *sfParser) bareItem() (sfValue, bool) {
	if p.eof() {
		return sfValue{}, false
	}
	c := p.s[p.pos]
	switch {
	case c == '-' || isDigit(c):
		return p.number()
	case c == '"':
		return p.str()
	case c == '*' || isAlpha(c):
		return p.token()
	case c == ':':
		return p.bytes()
	case c == '?':
		return p.boolean()
	}
	return sfValue{}, false
}

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func (p *sfParser) number() (sfValue, bool) {
	neg := false
	if p.s[p.pos] == '-' {
		neg = true
		p.pos++
	}
	if p.eof() || !isDigit(p.s[p.pos]) {
		return sfValue{}, false
	}
	start := p.pos
	dot := -1
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if isDigit(c) {
			p.pos++
		} else if c == '.' && dot < 0 {
			if p.pos-start > 12 {
				return sfValue{}, false
			}
			dot = p.pos
			p.pos++
		} else {
			break
		}
		if dot < 0 && p.pos-start > 15 {
			return sfValue{}, false
		}
		if dot >= 0 && p.pos-start > 16 {
			return sfValue{}, false
		}
	}
	digits := p.s[start:p.pos]
	if dot < 0 {
		var n int64
		for i := 0; i < len(digits); i++ {
			n = n*10 + int64(digits[i]-'0')
		}
		if neg {
			n = -n
		}
		return sfValue{kind: sfInteger, num: n}, true
	}
	frac := p.s[dot+1 : p.pos]
	if len(frac) == 0 || len(frac) > 3 {
		return sfValue{}, false
	}
	var ip, fp int64
	for i := start; i < dot; i++ {
		ip = ip*10 + int64(p.s[i]-'0')
	}
	scale := 1.0
	for i := 0; i < len(frac); i++ {
		fp = fp*10 + int64(frac[i]-'0')
		scale *= 10
	}
	d := float64(ip) + float64(fp)/scale
	if neg {
		d = -d
	}
	return sfValue{kind: sfDecimal, dec: d}, true
}

func (p *sfParser) str() (sfValue, bool) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '\\':
			if p.eof() {
				return sfValue{}, false
			}
			n := p.s[p.pos]
			if n != '"' && n != '\\' {
				return sfValue{}, false
			}
			b.WriteByte(n)
			p.pos++
		case c == '"':
			return sfValue{kind: sfString, str: b.String()}, true
		case c < 0x20 || c > 0x7e:
			return sfValue{}, false
		default:
			b.WriteByte(c)
		}
	}
	return sfValue{}, false // unterminated
}

func (p *sfParser) token() (sfValue, bool) {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) && (isTchar(p.s[p.pos]) || p.s[p.pos] == ':' || p.s[p.pos] == '/') {
		p.pos++
	}
	return sfValue{kind: sfToken, str: p.s[start:p.pos]}, true
}

func isTchar(c byte) bool {
	if isAlpha(c) || isDigit(c) {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *sfParser) bytes() (sfValue, bool) {
	p.pos++ // opening colon
	end := strings.IndexByte(p.s[p.pos:], ':')
	if end < 0 {
		return sfValue{}, false
	}
	enc := p.s[p.pos : p.pos+end]
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			return sfValue{}, false
		}
	}
	dec, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return sfValue{}, false
	}
	p.pos += end + 1
	return sfValue{kind: sfBytes, str: string(dec)}, true
}

func (p *sfParser) boolean() (sfValue, bool) {
	p.pos++ // '?'
	if p.eof() {
		return sfValue{}, false
	}
	c := p.s[p.pos]
	p.pos++
	switch c {
	case '1':
		return sfValue{kind: sfBoolean, bool: true}, true
	case '0':
		return sfValue{kind: sfBoolean, bool: false}, true
	}
	return sfValue{}, false
}
