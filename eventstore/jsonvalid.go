package eventstore

import "encoding/binary"

// validJSON reports whether b is exactly one JSON value, optionally surrounded by whitespace:
// the same answer as encoding/json's Valid, including its quirks (strings are not checked for
// valid UTF-8, \u escapes are not checked for surrogate pairs, nesting deeper than
// maxJSONDepth is refused), at several times its speed. Every append checks its events' data
// with it (ValidateAppend), and so do the readers that pass stored data on unparsed
// (CheckData); FuzzValidJSON holds it to json.Valid.
//
// It is one loop over the input with an explicit stack of open containers (one bit per level),
// so it neither recurses nor allocates for the nesting stored events have.
func validJSON(b []byte) bool {
	var v jsonValidator
	return v.valid(b)
}

// maxJSONDepth is encoding/json's limit on nested arrays and objects.
const maxJSONDepth = 10000

type jsonValidator struct {
	// stack holds one bit per open container, 1 for an object and 0 for an array; the first
	// 128 levels live in small, deeper ones spill into big.
	small [2]uint64
	big   []uint64
	depth int
}

func (v *jsonValidator) push(object bool) bool {
	if v.depth == maxJSONDepth {
		return false
	}
	w, bit := v.depth>>6, uint64(1)<<(v.depth&63)
	words := v.small[:]
	if w >= len(words) {
		if v.big == nil {
			v.big = make([]uint64, (maxJSONDepth+63)/64)
			copy(v.big, v.small[:])
		}
		words = v.big
	}
	if object {
		words[w] |= bit
	} else {
		words[w] &^= bit
	}
	v.depth++
	return true
}

// inObject reports whether the innermost open container is an object.
func (v *jsonValidator) inObject() bool {
	d := v.depth - 1
	words := v.small[:]
	if v.big != nil {
		words = v.big
	}
	return words[d>>6]&(uint64(1)<<(d&63)) != 0
}

func (v *jsonValidator) valid(b []byte) bool {
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{':
			if !v.push(true) {
				return false
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == '}' {
				v.depth--
				i++
				break
			}
			if i = memberName(b, i); i < 0 {
				return false
			}
			continue
		case '[':
			if !v.push(false) {
				return false
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == ']' {
				v.depth--
				i++
				break
			}
			continue
		case '"':
			if i = endOfString(b, i+1); i < 0 {
				return false
			}
		case 't':
			if i = literal(b, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literal(b, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literal(b, i, "null"); i < 0 {
				return false
			}
		default:
			if i = endOfNumber(b, i); i < 0 {
				return false
			}
		}
		// A value ended at i: close the containers it completes, then find the next value.
		for {
			if v.depth == 0 {
				return skipSpace(b, i) == len(b)
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return false
			}
			c := b[i]
			if c == ',' {
				i = skipSpace(b, i+1)
				if v.inObject() {
					if i = memberName(b, i); i < 0 {
						return false
					}
				}
				break
			}
			if v.inObject() {
				if c != '}' {
					return false
				}
			} else if c != ']' {
				return false
			}
			v.depth--
			i++
		}
	}
}

// jsonSpace marks the four bytes JSON allows between tokens.
var jsonSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func skipSpace(b []byte, i int) int {
	for i < len(b) && jsonSpace[b[i]] {
		i++
	}
	return i
}

// memberName checks the `"name" :` that starts at i and returns where the member's value
// starts (after any whitespace), or -1.
func memberName(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = endOfString(b, i+1); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// stringStop marks the bytes that end a run of plain string content: the closing quote, a
// backslash and the control characters, which JSON does not allow unescaped.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainWord reports whether none of the 8 bytes of x is a quote, a backslash or a control
// character. (x - ones*k) & ^x & highs is non-zero exactly when some byte of x is below k
// (borrows only run upwards from a byte that is below k, so they cannot make a false "yes"
// for a word that has none); a byte equal to q is a zero byte of x ^ ones*q.
func plainWord(x uint64) bool {
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	special := (x-ones*0x20) & ^x |
		(quote-ones) & ^quote |
		(backslash-ones) & ^backslash
	return special&highs == 0
}

// endOfString checks the rest of a string whose opening quote is just before i and returns
// the index after its closing quote, or -1.
func endOfString(b []byte, i int) int {
	for {
		// Skip plain content 8 bytes at a time, then byte by byte up to the next stop.
		for i+8 <= len(b) && plainWord(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && !stringStop[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return -1
				}
				i += 5
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal checks that lit (true, false or null) is at i and returns the index after it, or -1.
func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// endOfNumber checks the number at i, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and
// returns the index after it, or -1.
func endOfNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
		if i >= len(b) {
			return -1
		}
	}
	switch {
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		start := i + 1
		if i = digits(b, start); i == start {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		if i = digits(b, start); i == start {
			return -1
		}
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
