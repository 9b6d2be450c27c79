// Package sfv parses HTTP Structured Field Values (RFC 9651): Lists and Dictionaries of Items and
// Inner Lists with Parameters. It follows the RFC's parsing algorithms, including their failure
// rules (any failure means the whole field is ignored). Dates (@...) and Display Strings (%"...")
// are not supported: a field using them fails to parse. The relayer reads its upstream
// providers' rate-limit fields with it, and its tests read the rate-limit fields it sends.
package sfv

import (
	"encoding/base64"
	"strings"
)

// Kind is what a Value holds.
type Kind uint8

// The kinds of Value.
const (
	Integer Kind = iota + 1
	Decimal
	String
	Token
	Bytes
	Boolean
	InnerList
)

// Value is a Bare Item, or an Inner List: Kind says which field holds it.
type Value struct {
	Kind  Kind
	Int   int64   // Integer
	Dec   float64 // Decimal
	Str   string  // String, Token, Bytes (decoded)
	Bool  bool    // Boolean
	Inner []Item  // InnerList
}

// Parameter is one Parameter of an Item.
type Parameter struct {
	Key   string
	Value Value
}

// Item is a member of a List, or the value of a Dictionary's member: a Value with its
// Parameters, in order.
type Item struct {
	Value  Value
	Params []Parameter
}

// Param returns the value of the parameter key.
func (it Item) Param(key string) (Value, bool) {
	for _, p := range it.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return Value{}, false
}

// Member is one member of a Dictionary.
type Member struct {
	Key  string
	Item Item
}

type parser struct {
	s   string
	pos int
}

// JoinFieldLines combines a field's lines as RFC 9651 §4.2 asks: joined with ", ".
func JoinFieldLines(lines []string) string { return strings.Join(lines, ", ") }

// ParseList parses a List field (its lines joined, see JoinFieldLines); false when it is not one.
func ParseList(input string) ([]Item, bool) {
	return parseMembers(input, func(p *parser, out []Item) ([]Item, bool) {
		it, ok := p.itemOrInnerList()
		return append(out, it), ok
	})
}

// ParseDictionary parses a Dictionary field (its lines joined); false when it is not one. A
// repeated key overwrites the earlier value, in its place.
func ParseDictionary(input string) ([]Member, bool) {
	return parseMembers(input, func(p *parser, out []Member) ([]Member, bool) {
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		var it Item
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
			it = Item{Value: Value{Kind: Boolean, Bool: true}, Params: params}
		}
		return setMember(out, Member{Key: key, Item: it}), true
	})
}

// parseMembers is the loop a List and a Dictionary share: leading spaces, then members, each
// read by member and added to out, separated by commas with optional white space around them.
// Anything else between members, or a trailing comma, fails.
func parseMembers[M any](input string, member func(p *parser, out []M) ([]M, bool)) ([]M, bool) {
	p := &parser{s: input}
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

func (m Member) memberKey() string    { return m.Key }
func (m Parameter) memberKey() string { return m.Key }

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

func (p *parser) eof() bool { return p.pos >= len(p.s) }

func (p *parser) skipSP() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *parser) skipOWS() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *parser) itemOrInnerList() (Item, bool) {
	if !p.eof() && p.s[p.pos] == '(' {
		return p.innerList()
	}
	return p.item()
}

// item parses an item: a bare item and its parameters.
func (p *parser) item() (Item, bool) {
	v, ok := p.bareItem()
	if !ok {
		return Item{}, false
	}
	params, ok := p.params()
	if !ok {
		return Item{}, false
	}
	return Item{Value: v, Params: params}, true
}

func (p *parser) innerList() (Item, bool) {
	p.pos++ // '('
	var items []Item
	for !p.eof() {
		p.skipSP()
		if p.eof() {
			break
		}
		if p.s[p.pos] == ')' {
			p.pos++
			params, ok := p.params()
			if !ok {
				return Item{}, false
			}
			return Item{Value: Value{Kind: InnerList, Inner: items}, Params: params}, true
		}
		it, ok := p.item()
		if !ok {
			return Item{}, false
		}
		items = append(items, it)
		if p.eof() || (p.s[p.pos] != ' ' && p.s[p.pos] != ')') {
			return Item{}, false
		}
	}
	return Item{}, false
}

func (p *parser) params() ([]Parameter, bool) {
	var out []Parameter
	for !p.eof() && p.s[p.pos] == ';' {
		p.pos++
		p.skipSP()
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		val := Value{Kind: Boolean, Bool: true}
		if !p.eof() && p.s[p.pos] == '=' {
			p.pos++
			if val, ok = p.bareItem(); !ok {
				return nil, false
			}
		}
		out = setMember(out, Parameter{Key: key, Value: val})
	}
	return out, true
}

func (p *parser) key() (string, bool) {
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

func (p *parser) bareItem() (Value, bool) {
	if p.eof() {
		return Value{}, false
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
	return Value{}, false
}

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func (p *parser) number() (Value, bool) {
	neg := false
	if p.s[p.pos] == '-' {
		neg = true
		p.pos++
	}
	if p.eof() || !isDigit(p.s[p.pos]) {
		return Value{}, false
	}
	start := p.pos
	dot := -1
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if isDigit(c) {
			p.pos++
		} else if c == '.' && dot < 0 {
			if p.pos-start > 12 {
				return Value{}, false
			}
			dot = p.pos
			p.pos++
		} else {
			break
		}
		if dot < 0 && p.pos-start > 15 {
			return Value{}, false
		}
		if dot >= 0 && p.pos-start > 16 {
			return Value{}, false
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
		return Value{Kind: Integer, Int: n}, true
	}
	frac := p.s[dot+1 : p.pos]
	if len(frac) == 0 || len(frac) > 3 {
		return Value{}, false
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
	return Value{Kind: Decimal, Dec: d}, true
}

func (p *parser) str() (Value, bool) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '\\':
			if p.eof() {
				return Value{}, false
			}
			n := p.s[p.pos]
			if n != '"' && n != '\\' {
				return Value{}, false
			}
			b.WriteByte(n)
			p.pos++
		case c == '"':
			return Value{Kind: String, Str: b.String()}, true
		case c < 0x20 || c > 0x7e:
			return Value{}, false
		default:
			b.WriteByte(c)
		}
	}
	return Value{}, false // unterminated
}

func (p *parser) token() (Value, bool) {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) && (isTchar(p.s[p.pos]) || p.s[p.pos] == ':' || p.s[p.pos] == '/') {
		p.pos++
	}
	return Value{Kind: Token, Str: p.s[start:p.pos]}, true
}

func isTchar(c byte) bool {
	if isAlpha(c) || isDigit(c) {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *parser) bytes() (Value, bool) {
	p.pos++ // opening colon
	end := strings.IndexByte(p.s[p.pos:], ':')
	if end < 0 {
		return Value{}, false
	}
	enc := p.s[p.pos : p.pos+end]
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			return Value{}, false
		}
	}
	dec, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return Value{}, false
	}
	p.pos += end + 1
	return Value{Kind: Bytes, Str: string(dec)}, true
}

func (p *parser) boolean() (Value, bool) {
	p.pos++ // '?'
	if p.eof() {
		return Value{}, false
	}
	c := p.s[p.pos]
	p.pos++
	switch c {
	case '1':
		return Value{Kind: Boolean, Bool: true}, true
	case '0':
		return Value{Kind: Boolean, Bool: false}, true
	}
	return Value{}, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
