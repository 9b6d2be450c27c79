package projections

// The request read model keeps a few strings per job (content hash, tx hash, gateway request id,
// the result's JSON) for as long as the process runs, and most of their bytes are lowercase hex
// digits: hashes, addresses, signatures, ciphertext handles. Stored as text, each hex digit
// costs a byte; packed, two digits share one. At a million jobs that is the difference between
// fitting the memory budget (DESIGN section 5, 1 KiB per job for all projections) and not.
//
// The packed form is a sequence of segments, each a header byte and its payload:
//
//	0x01..0x7f  a literal run: that many bytes follow, copied as they are
//	0x81..0xff  a hex run: (header & 0x7f) bytes follow, each standing for two lowercase hex digits
//
// Only runs of at least minHexRun lowercase digits are packed (shorter ones cost more in headers
// than they save), and only an even number of them, so unpacking gives back exactly the bytes
// that were packed: uppercase digits and odd leftovers stay literal.

const (
	maxSegment = 0x7f
	hexFlag    = 0x80
	minHexRun  = 8
)

// lowerHex maps a byte to its value as a lowercase hex digit, and every other byte to
// notHex. It is filled once and only read.
var lowerHex = func() (t [256]byte) {
	for i := range t {
		t[i] = notHex
	}
	for i, c := range []byte(hexDigits) {
		t[c] = byte(i)
	}
	return t
}()

const notHex = 0xff

// packText appends the packed form of s to dst.
func packText(dst []byte, s []byte) []byte {
	lit := 0 // start of the pending literal run
	i := 0
	for i < len(s) {
		if lowerHex[s[i]] == notHex {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && lowerHex[s[j]] != notHex {
			j++
		}
		n := (j - i) &^ 1 // an even number of digits
		if n < minHexRun {
			i = j
			continue
		}
		dst = appendLiteral(dst, s[lit:i])
		for k := i; k < i+n; {
			m := min((i+n-k)/2, maxSegment)
			dst = append(dst, hexFlag|byte(m))
			for p := k; p < k+2*m; p += 2 {
				dst = append(dst, lowerHex[s[p]]<<4|lowerHex[s[p+1]])
			}
			k += 2 * m
		}
		i += n
		lit = i
	}
	return appendLiteral(dst, s[lit:])
}

func appendLiteral(dst []byte, s []byte) []byte {
	for len(s) > 0 {
		m := min(len(s), maxSegment)
		dst = append(dst, byte(m))
		dst = append(dst, s[:m]...)
		s = s[m:]
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// unpackText appends the text that p is the packed form of to dst. p must come from packText.
func unpackText(dst []byte, p string) []byte {
	for i := 0; i < len(p); {
		h := p[i]
		i++
		m := int(h &^ hexFlag)
		if h&hexFlag == 0 {
			dst = append(dst, p[i:i+m]...)
		} else {
			for _, b := range []byte(p[i : i+m]) {
				dst = append(dst, hexDigits[b>>4], hexDigits[b&0x0f])
			}
		}
		i += m
	}
	return dst
}

// unpackString is unpackText into a new string.
func unpackString(p string) string {
	if p == "" {
		return ""
	}
	var buf [128]byte // on the stack: the string is the one allocation for most fields
	return string(unpackText(buf[:0], p))
}
