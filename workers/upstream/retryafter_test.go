package upstream

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterVectors(t *testing.T) {
	// t0 is Wed, 01 Jan 2025 00:00:00 GMT.
	cases := []struct {
		name  string
		value string
		want  time.Duration
		ok    bool
	}{
		// delay-seconds
		{"plain seconds", "120", 120 * time.Second, true},
		{"zero", "0", 0, true},
		{"leading zeros", "007", 7 * time.Second, true},
		{"the largest exact value", "9223372036", MaxRetryAfter, true},
		{"one past the largest saturates", "9223372037", MaxRetryAfter, true},
		{"huge overflow saturates", "99999999999999999999999", MaxRetryAfter, true},
		{"a thousand digits saturate", strings.Repeat("9", 1000), MaxRetryAfter, true},
		{"spaces around are OWS", " 5 ", 5 * time.Second, true},
		{"tabs around are OWS", "\t5\t", 5 * time.Second, true},
		{"negative", "-1", 0, false},
		{"plus sign", "+5", 0, false},
		{"decimal", "1.5", 0, false},
		{"space inside", "5 0", 0, false},
		{"empty", "", 0, false},
		{"only spaces", "   ", 0, false},
		{"unit suffix", "5s", 0, false},
		{"hex", "0x10", 0, false},
		{"exponent", "1e3", 0, false},
		{"fullwidth digit", "５", 0, false},
		{"newline is not OWS", "5\n", 0, false},
		{"comma list", "5, 6", 0, false},

		// IMF-fixdate
		{"IMF-fixdate in the future", "Wed, 01 Jan 2025 00:01:40 GMT", 100 * time.Second, true},
		{"IMF-fixdate now", "Wed, 01 Jan 2025 00:00:00 GMT", 0, true},
		{"IMF-fixdate in the past", "Sun, 06 Nov 1994 08:49:37 GMT", 0, true},
		{"IMF-fixdate with OWS", "  Wed, 01 Jan 2025 00:01:40 GMT\t", 100 * time.Second, true},
		{"IMF-fixdate on a leap day", "Tue, 29 Feb 2028 00:00:00 GMT", time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC).Sub(t0), true},
		{"IMF-fixdate with a leap second", "Wed, 01 Jan 2025 00:00:60 GMT", time.Minute, true},
		{"IMF-fixdate far in the future saturates", "Fri, 31 Dec 9999 23:59:59 GMT", MaxRetryAfter, true},
		{"IMF-fixdate with the wrong weekday", "Mon, 06 Nov 1994 08:49:37 GMT", 0, false},
		{"IMF-fixdate with lowercase gmt", "Sun, 06 Nov 1994 08:49:37 gmt", 0, false},
		{"IMF-fixdate with lowercase month", "Sun, 06 nov 1994 08:49:37 GMT", 0, false},
		{"IMF-fixdate with lowercase day name", "sun, 06 Nov 1994 08:49:37 GMT", 0, false},
		{"IMF-fixdate in UTC", "Sun, 06 Nov 1994 08:49:37 UTC", 0, false},
		{"IMF-fixdate with +0000", "Sun, 06 Nov 1994 08:49:37 +0000", 0, false},
		{"IMF-fixdate in EST", "Sun, 06 Nov 1994 08:49:37 EST", 0, false},
		{"IMF-fixdate with an offset", "Wed, 01 Jan 2025 00:01:40 -0500", 0, false},
		{"IMF-fixdate with a one-digit day", "Sun, 6 Nov 1994 08:49:37 GMT", 0, false},
		{"IMF-fixdate with a one-digit hour", "Sun, 06 Nov 1994 8:49:37 GMT", 0, false},
		{"IMF-fixdate with fractional seconds", "Sun, 06 Nov 1994 08:49:37.5 GMT", 0, false},
		{"IMF-fixdate with a two-digit year", "Sun, 06 Nov 94 08:49:37 GMT", 0, false},
		{"IMF-fixdate on a day that does not exist", "Thu, 31 Apr 2025 00:00:00 GMT", 0, false},
		{"IMF-fixdate on 29 Feb of a common year", "Sat, 29 Feb 2025 00:00:00 GMT", 0, false},
		{"IMF-fixdate at hour 24", "Wed, 01 Jan 2025 24:00:00 GMT", 0, false},
		{"IMF-fixdate at minute 60", "Wed, 01 Jan 2025 00:60:00 GMT", 0, false},
		{"IMF-fixdate followed by garbage", "Sun, 06 Nov 1994 08:49:37 GMT x", 0, false},
		{"IMF-fixdate without the comma", "Sun 06 Nov 1994 08:49:37 GMT", 0, false},
		{"IMF-fixdate with a full day name", "Sunday, 06 Nov 1994 08:49:37 GMT", 0, false},

		// RFC 850
		{"RFC 850 in the future", "Wednesday, 01-Jan-25 00:01:40 GMT", 100 * time.Second, true},
		{"RFC 850 in the past", "Sunday, 06-Nov-94 08:49:37 GMT", 0, true},
		{"RFC 850 with the wrong weekday", "Monday, 06-Nov-94 08:49:37 GMT", 0, false},
		{"RFC 850 with a short day name", "Sun, 06-Nov-94 08:49:37 GMT", 0, false},
		{"RFC 850 with lowercase gmt", "Sunday, 06-Nov-94 08:49:37 gmt", 0, false},
		{"RFC 850 with a four-digit year", "Sunday, 06-Nov-1994 08:49:37 GMT", 0, false},
		{"RFC 850 with a zone", "Sunday, 06-Nov-94 08:49:37 PST", 0, false},

		// asctime
		{"asctime in the future", "Wed Jan  1 00:01:40 2025", 100 * time.Second, true},
		{"asctime in the past", "Sun Nov  6 08:49:37 1994", 0, true},
		{"asctime with a two-digit day", "Wed Nov 16 08:49:37 1994", 0, true},
		{"asctime with a zero-padded day", "Sun Nov 06 08:49:37 1994", 0, true},
		{"asctime with the wrong weekday", "Mon Nov  6 08:49:37 1994", 0, false},
		{"asctime with one space before a one-digit day", "Sun Nov 6 08:49:37 1994", 0, false},
		{"asctime with GMT", "Sun Nov  6 08:49:37 1994 GMT", 0, false},
		{"asctime with a lowercase month", "Sun nov  6 08:49:37 1994", 0, false},

		// neither
		{"a word", "soon", 0, false},
		{"an ISO 8601 date", "2025-01-01T00:01:40Z", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(c.value, t0)
			if ok != c.ok || got != c.want {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", c.value, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestAFutureDateIsMeasuredFromNowToTheNanosecond(t *testing.T) {
	now := t0.Add(250 * time.Millisecond)
	got, ok := ParseRetryAfter("Wed, 01 Jan 2025 00:00:01 GMT", now)
	if !ok || got != 750*time.Millisecond {
		t.Fatalf("got %v, %v; want 750ms", got, ok)
	}
}

func TestTheThreeDateFormsOfOneInstantAgree(t *testing.T) {
	instant := time.Date(2031, time.July, 9, 17, 3, 8, 0, time.UTC)
	forms := []string{
		instant.Format("Mon, 02 Jan 2006 15:04:05 GMT"),
		instant.Format("Monday, 02-Jan-06 15:04:05 GMT"),
		instant.Format("Mon Jan _2 15:04:05 2006"),
	}
	for _, f := range forms {
		got, ok := ParseHTTPDate(f, t0)
		if !ok || !got.Equal(instant) {
			t.Errorf("ParseHTTPDate(%q) = %v, %v; want %v", f, got, ok, instant)
		}
	}
}

func TestATwoDigitYearMoreThanFiftyYearsAheadIsInThePastCentury(t *testing.T) {
	rfc850 := func(year int, month time.Month, day, sec int) string {
		return time.Date(year, month, day, 0, 0, sec, 0, time.UTC).Format("Monday, 02-Jan-06 15:04:05 GMT")
	}
	cases := []struct {
		name  string
		now   time.Time
		value string
		year  int
	}{
		{"94 in 2025 is 1994", t0, rfc850(1994, time.November, 6, 0), 1994},
		{"30 in 2025 is 2030", t0, rfc850(2030, time.March, 1, 0), 2030},
		{"24 in 2025 is 2024", t0, rfc850(2024, time.March, 1, 0), 2024},
		{"74 in 2025 is 2074", t0, rfc850(2074, time.December, 31, 0), 2074},
		{"exactly 50 years ahead stays ahead", t0, rfc850(2075, time.January, 1, 0), 2075},
		{"a second more than 50 years ahead is the past century", t0, rfc850(1975, time.January, 1, 1), 1975},
		{"76 in 2025 is 1976", t0, rfc850(1976, time.June, 1, 0), 1976},
		{"05 in 2090 is 2105", time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC), rfc850(2105, time.May, 5, 0), 2105},
		{"49 in 2099 is 2149", time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC), rfc850(2149, time.January, 1, 0), 2149},
		{"50 in 2099 is 2050 (2150 would be a day too far)", time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC), rfc850(2050, time.January, 1, 0), 2050},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseHTTPDate(c.value, c.now)
			if !ok || got.Year() != c.year {
				t.Fatalf("ParseHTTPDate(%q, %v) = %v, %v; want year %d", c.value, c.now, got, ok, c.year)
			}
		})
	}
}

func TestATwoDigitYearIsNotMovedToAnotherCenturyToMakeItsDayExist(t *testing.T) {
	// In 2060, "00" is 2100 (40 years ahead), a common year: 29 Feb 2100 does not exist, even
	// though 29 Feb 2000 did.
	now := time.Date(2060, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, day := range []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"} {
		if got, ok := ParseHTTPDate(day+", 29-Feb-00 00:00:00 GMT", now); ok {
			t.Fatalf("29-Feb-00 in 2060 parsed as %v", got)
		}
	}
	// In 2025, "00" is 2000, which had a 29 Feb (a Tuesday).
	if got, ok := ParseHTTPDate("Tuesday, 29-Feb-00 00:00:00 GMT", t0); !ok || got.Year() != 2000 {
		t.Fatalf("29-Feb-00 in 2025 = %v, %v", got, ok)
	}
}

func TestAWrongWeekdayIsRejectedInEveryForm(t *testing.T) {
	// 1 Jan 2025 is a Wednesday; every other day name must be refused.
	for i, short := range shortDayNames {
		want := i == int(time.Wednesday)
		long := longDayNames[i]
		for _, v := range []string{
			short + ", 01 Jan 2025 00:00:00 GMT",
			long + ", 01-Jan-25 00:00:00 GMT",
			short + " Jan  1 00:00:00 2025",
		} {
			if _, ok := ParseHTTPDate(v, t0); ok != want {
				t.Errorf("ParseHTTPDate(%q) ok = %v, want %v", v, ok, want)
			}
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{
		"0", "120", "007", " 5 ", "5 0", "-1", "+5", "1.5", "", "99999999999999999999999",
		"9223372036", "9223372037",
		"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
		"Wed, 01 Jan 2025 00:01:40 GMT", "Wednesday, 01-Jan-25 00:01:40 GMT", "Wed Jan  1 00:01:40 2025",
		"Fri, 31 Dec 9999 23:59:60 GMT", "Sat, 01 Jan 0000 00:00:00 GMT", "Tuesday, 29-Feb-00 00:00:00 GMT",
		"Sun, 06 Nov 1994 08:49:37 gmt", "Mon, 06 Nov 1994 08:49:37 GMT",
	} {
		f.Add(seed, int64(0))
	}
	f.Fuzz(func(t *testing.T, value string, offset int64) {
		now := t0.Add(time.Duration(offset))
		d, ok := ParseRetryAfter(value, now)
		if !ok {
			if d != 0 {
				t.Fatalf("ParseRetryAfter(%q) = %v with ok false", value, d)
			}
			return
		}
		if d < 0 || d > MaxRetryAfter {
			t.Fatalf("ParseRetryAfter(%q) = %v, outside [0, %v]", value, d, MaxRetryAfter)
		}
		v := trimOWS(value)
		if isAllDigits(v) {
			// Digits are a whole number of seconds that round-trips through its decimal form.
			if d%time.Second != 0 {
				t.Fatalf("ParseRetryAfter(%q) = %v, not whole seconds", value, d)
			}
			back, ok := ParseRetryAfter(strconv.FormatInt(int64(d/time.Second), 10), now)
			if !ok || back != d {
				t.Fatalf("round trip of %q: %v then %v, %v", value, d, back, ok)
			}
			if n, err := strconv.ParseUint(v, 10, 64); err == nil && n <= uint64(MaxRetryAfter/time.Second) && d != time.Duration(n)*time.Second {
				t.Fatalf("ParseRetryAfter(%q) = %v, want %d s", value, d, n)
			}
			return
		}
		// Anything else that parses is a date, and reads the same written as IMF-fixdate.
		at, ok := ParseHTTPDate(v, now)
		if !ok {
			t.Fatalf("ParseRetryAfter(%q) ok, but it is neither digits nor a date", value)
		}
		if at.Year() >= 0 && at.Year() <= 9999 {
			again, ok := ParseHTTPDate(at.Format("Mon, 02 Jan 2006 15:04:05 GMT"), now)
			if !ok || !again.Equal(at) {
				t.Fatalf("%q: %v does not round-trip through IMF-fixdate (%v, %v)", value, at, again, ok)
			}
		}
	})
}

func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
