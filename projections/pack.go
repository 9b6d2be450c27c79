package projections

import (
	"slices"

	"relayer/domain"
)

// The request read model keeps a few strings per job (tx hash, gateway request id, parties,
// the result's JSON) for as long as the process runs, and most of their bytes are lowercase hex
// digits: hashes, addresses, signatures, ciphertext handles. Stored as text, each hex digit
// costs a byte; packed, two digits share one. At a million jobs that is the difference between
// fitting the memory budget (DESIGN section 5, 1 KiB per job for all projections) and not.
//
// The packed form is a sequence of segments, each a header byte and its payload:
//
//	0x01..0x5f  a literal run: that many bytes follow, copied as they are
//	0x60..0x7f  a token: no bytes follow, it stands for tokens[header - 0x60]
//	0x81..0xff  a hex run: (header & 0x7f) bytes follow, each standing for two lowercase hex digits
//
// Only runs of at least minHexRun lowercase digits are packed (shorter ones cost more in headers
// than they save), and only an even number of them, so unpacking gives back exactly the bytes
// that were packed: uppercase digits and odd leftovers stay literal. Between the hex runs, the
// text the read models keep most often (the "0x" before a hex value, the JSON around the values
// of a result, the failure labels) is written as tokens, a byte each.

const (
	maxSegment = 0x5f
	tokenBase  = 0x60
	hexFlag    = 0x80
	minHexRun  = 8
)

// tokens are the texts a token byte stands for: at most 32. Their order is the packed form's
// (kept in memory only, never written), so it may change freely.
var tokens = [...]string{
	`0x`,
	`{"inputProof":{"accepted":true,"handles":["0x`,
	`{"inputProof":{"accepted":false,"handles":[],"signatures":[],"extraData":"`,
	`"],"signatures":["0x`,
	`","0x`,
	`"],"extraData":"0x00"}}`,
	`"],"extraData":"`,
	`{"publicDecrypt":{"decryptedValue":"0x`,
	`","signatures":["0x`,
	`{"userDecrypt":{"result":[{"payload":"0x`,
	`","signature":"0x`,
	`","extraData":"0x00"},{"payload":"0x`,
	`","extraData":"0x00"}]}}`,
	`","extraData":"`,
	`"},{"payload":"0x`,
	`"}]}}`,
	`"}}`,
	domain.LabelNotAllowedOnHostACL,
	domain.LabelReadinessCheckFailed,
	domain.LabelReadinessCheckTimedOut,
	domain.LabelResponseTimedOut,
	domain.LabelTransactionReverted,
	domain.LabelTransactionFailed,
	domain.LabelTxInFlightTimedOut,
	domain.LabelProtocolPaused,
	domain.LabelProofRejected,
	domain.LabelInternalServerError,
	domain.LabelInsufficientBalance,
	domain.LabelGatewayNotReachable,
	domain.LabelCancelled,
	domain.LabelSignerUnavailable,
	domain.LabelHostACLFailed,
}

// tokensFrom lists, for each byte, the tokens that begin with it, longest first.
var tokensFrom = func() (t [256][]uint8) {
	for i := range tokens {
		c := tokens[i][0]
		t[c] = append(t[c], uint8(i))
	}
	for c := range t {
		slices.SortStableFunc(t[c], func(a, b uint8) int { return len(tokens[b]) - len(tokens[a]) })
	}
	return t
}()

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

// appendLiteral appends s, text with no hex run to pack, as tokens and literal runs.
func appendLiteral(dst []byte, s []byte) []byte {
	plain := 0 // start of the bytes not yet written
	for i := 0; i < len(s); {
		t, ok := tokenAt(s[i:])
		if !ok {
			i++
			continue
		}
		dst = appendPlain(dst, s[plain:i])
		dst = append(dst, tokenBase+t)
		i += len(tokens[t])
		plain = i
	}
	return appendPlain(dst, s[plain:])
}

// tokenAt returns the longest token s begins with.
func tokenAt(s []byte) (uint8, bool) {
	for _, t := range tokensFrom[s[0]] {
		if len(s) >= len(tokens[t]) && string(s[:len(tokens[t])]) == tokens[t] {
			return t, true
		}
	}
	return 0, false
}

// appendPlain appends s as literal runs.
func appendPlain(dst []byte, s []byte) []byte {
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
		if h&hexFlag == 0 && h >= tokenBase {
			dst = append(dst, tokens[h-tokenBase]...)
			continue
		}
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
