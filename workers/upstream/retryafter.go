package upstream

import (
	"math"
	"time"
)

// MaxRetryAfter is the largest wait ParseRetryAfter returns: the largest whole number of seconds a
// time.Duration can hold (about 292 years). Larger delay-seconds and dates further in the future
// saturate to it instead of wrapping around. It is a property of the parser, not a policy: callers
// cap what they are willing to honour (Config.MaxServerWait, 24h by default).
const MaxRetryAfter = time.Duration(math.MaxInt64/int64(time.Second)) * time.Second

const maxRetryAfterSeconds = uint64(MaxRetryAfter / time.Second)

// ParseRetryAfter parses a Retry-After field value (RFC 9110 §10.2.3) and returns how long to wait
// from now. ok is false when the value is not valid; nothing is guessed.
//
// The value is either delay-seconds (1*DIGIT: no sign, no decimal point, no inner spaces; leading
// zeros are allowed; values beyond MaxRetryAfter saturate to it) or an HTTP-date in any of the
// three forms of RFC 9110 §5.6.7 (see ParseHTTPDate). A date at or before now gives 0 with ok
// true: the server's wait is over. Spaces and tabs around the whole value (OWS) are ignored; no
// other leniency is allowed. The result is always in [0, MaxRetryAfter].
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := trimOWS(value)
	if v == "" {
		return 0, false
	}
	if isDigit(v[0]) {
		n, ok := parseDelaySeconds(v)
		if !ok {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	t, ok := ParseHTTPDate(v, now)
	if !ok {
		return 0, false
	}
	return untilClamped(t, now), true
}

// untilClamped is t - now, at least 0 and at most MaxRetryAfter.
func untilClamped(t, now time.Time) time.Duration {
	if !t.After(now) {
		return 0
	}
	d := t.Sub(now) // time.Time.Sub saturates at the largest Duration
	if d > MaxRetryAfter {
		return MaxRetryAfter
	}
	return d
}

// parseDelaySeconds parses 1*DIGIT, saturating at maxRetryAfterSeconds.
func parseDelaySeconds(s string) (uint64, bool) { return parseDigits(s, maxRetryAfterSeconds) }

// parseDigits parses 1*DIGIT as a number, saturating at max (which must be below 2^63).
func parseDigits(s string, max uint64) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) {
			return 0, false
		}
		if n <= max { // once past max, keep validating but stop growing
			n = n*10 + uint64(c-'0')
		}
	}
	if n > max {
		n = max
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// trimOWS removes optional whitespace (SP and HTAB, RFC 9110 §5.6.3) from both ends.
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

var (
	shortDayNames = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	longDayNames  = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthNames    = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// ParseHTTPDate parses an HTTP-date (RFC 9110 §5.6.7) in any of its three forms and returns it in
// UTC:
//
//	IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
//	RFC 850      Sunday, 06-Nov-94 08:49:37 GMT
//	asctime      Sun Nov  6 08:49:37 1994
//
// Parsing is exact, as the grammar is: names are case-sensitive ("nov" and "gmt" are rejected),
// every number has its fixed width, the zone is the literal GMT (other zones and offsets are
// rejected), and there is nothing before or after. Seconds may be 60 (a leap second, which
// time.Date carries into the next minute). The day must exist in its month, and the day name
// must be the weekday of the date: a value that contradicts itself is rejected rather than
// half-believed (unlike time.Parse, which ignores the day name).
//
// An RFC 850 two-digit year is read as the year with those last two digits that is not more than
// 50 years after now (RFC 9110 §5.6.7), so now is needed to read it.
func ParseHTTPDate(s string, now time.Time) (time.Time, bool) {
	if len(s) < 4 {
		return time.Time{}, false
	}
	switch {
	case s[3] == ',':
		return parseIMFFixdate(s)
	case s[3] == ' ':
		return parseAsctime(s)
	default:
		return parseRFC850(s, now)
	}
}

// parseIMFFixdate: "Sun, 06 Nov 1994 08:49:37 GMT", exactly 29 bytes.
func parseIMFFixdate(s string) (time.Time, bool) {
	if len(s) != 29 || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' || s[25:] != " GMT" {
		return time.Time{}, false
	}
	wd, ok := lookup(shortDayNames[:], s[0:3])
	if !ok {
		return time.Time{}, false
	}
	day, ok1 := fixedNum(s[5:7])
	mon, ok2 := lookup(monthNames[:], s[8:11])
	year, ok3 := fixedNum(s[12:16])
	if !ok1 || !ok2 || !ok3 {
		return time.Time{}, false
	}
	return buildDate(year, mon+1, day, s[17:25], wd)
}

// parseRFC850: "Sunday, 06-Nov-94 08:49:37 GMT".
func parseRFC850(s string, now time.Time) (time.Time, bool) {
	comma := -1
	for i := 0; i < len(s) && i < 10; i++ {
		if s[i] == ',' {
			comma = i
			break
		}
	}
	if comma < 0 {
		return time.Time{}, false
	}
	wd, ok := lookup(longDayNames[:], s[:comma])
	if !ok {
		return time.Time{}, false
	}
	r := s[comma+1:] // " 06-Nov-94 08:49:37 GMT", exactly 23 bytes
	if len(r) != 23 || r[0] != ' ' || r[3] != '-' || r[7] != '-' || r[10] != ' ' || r[19:] != " GMT" {
		return time.Time{}, false
	}
	day, ok1 := fixedNum(r[1:3])
	mon, ok2 := lookup(monthNames[:], r[4:7])
	yy, ok3 := fixedNum(r[8:10])
	if !ok1 || !ok2 || !ok3 {
		return time.Time{}, false
	}
	clock := r[11:19]
	hh, ok1 := fixedNum(clock[0:2])
	mm, ok2 := fixedNum(clock[3:5])
	ss, ok3 := fixedNum(clock[6:8])
	if !ok1 || !ok2 || !ok3 {
		return time.Time{}, false
	}
	// The years ending in yy are ..., base-100, base, base+100: the year is the latest of them
	// whose timestamp is not more than 50 years after now. The fields are checked afterwards,
	// so a day that does not exist in that year is rejected, not moved to another century.
	limit := now.UTC().AddDate(50, 0, 0)
	year := (now.UTC().Year()/100)*100 + yy + 100
	for time.Date(year, time.Month(mon+1), day, hh, mm, ss, 0, time.UTC).After(limit) {
		year -= 100
	}
	return buildDate(year, mon+1, day, clock, wd)
}

// parseAsctime: "Sun Nov  6 08:49:37 1994" or "Sun Nov 16 08:49:37 1994", exactly 24 bytes.
func parseAsctime(s string) (time.Time, bool) {
	if len(s) != 24 || s[3] != ' ' || s[7] != ' ' || s[10] != ' ' || s[19] != ' ' {
		return time.Time{}, false
	}
	wd, ok := lookup(shortDayNames[:], s[0:3])
	if !ok {
		return time.Time{}, false
	}
	mon, ok := lookup(monthNames[:], s[4:7])
	if !ok {
		return time.Time{}, false
	}
	var day int
	if s[8] == ' ' { // ( SP DIGIT )
		if !isDigit(s[9]) {
			return time.Time{}, false
		}
		day = int(s[9] - '0')
	} else { // 2DIGIT
		d, ok := fixedNum(s[8:10])
		if !ok {
			return time.Time{}, false
		}
		day = d
	}
	year, ok := fixedNum(s[20:24])
	if !ok {
		return time.Time{}, false
	}
	return buildDate(year, mon+1, day, s[11:19], wd)
}

// buildDate checks the fields and builds the UTC time. clock is "hh:mm:ss". wd is the weekday the
// value named, or -1 to skip the check.
func buildDate(year, month, day int, clock string, wd int) (time.Time, bool) {
	if len(clock) != 8 || clock[2] != ':' || clock[5] != ':' {
		return time.Time{}, false
	}
	hh, ok1 := fixedNum(clock[0:2])
	mm, ok2 := fixedNum(clock[3:5])
	ss, ok3 := fixedNum(clock[6:8])
	if !ok1 || !ok2 || !ok3 || hh > 23 || mm > 59 || ss > 60 || day < 1 || day > 31 {
		return time.Time{}, false
	}
	// Check the day exists (no 31 Apr, no 29 Feb outside leap years) before a leap second moves
	// the time into the next day.
	midnight := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if midnight.Day() != day {
		return time.Time{}, false
	}
	if wd >= 0 && int(midnight.Weekday()) != wd {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hh, mm, ss, 0, time.UTC), true
}

// fixedNum parses a string of ASCII digits (its whole length) as a non-negative number.
func fixedNum(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// lookup finds s in names, case-sensitively.
func lookup(names []string, s string) (int, bool) {
	for i, n := range names {
		if n == s {
			return i, true
		}
	}
	return 0, false
}
