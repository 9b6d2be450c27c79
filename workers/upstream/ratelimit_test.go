package upstream

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func TestRateLimitHeaderVectors(t *testing.T) {
	epoch := func(d time.Duration) string { return strconv.FormatInt(t0.Add(d).Unix(), 10) }
	type want struct {
		header    string
		policy    string
		limit     int64
		remaining int64
		reset     time.Duration // from t0; -1 for none
		window    time.Duration
		wait      time.Duration
		waitFrom  string // "" for no wait
	}
	cases := []struct {
		name string
		h    http.Header
		want want
	}{
		{"structured RateLimit with its policy",
			header("RateLimit-Policy", `"default";q=100;w=60`, "RateLimit", `"default";r=0;t=30`),
			want{HeaderRateLimit, "default", 100, 0, 30 * time.Second, time.Minute, 30 * time.Second, HeaderRateLimit}},
		{"structured RateLimit with token names",
			header("RateLimit-Policy", `default;q=100;w=60`, "RateLimit", `default;r=0;t=30`),
			want{HeaderRateLimit, "default", 100, 0, 30 * time.Second, time.Minute, 30 * time.Second, HeaderRateLimit}},
		{"structured RateLimit with quota left asks no wait",
			header("RateLimit", `"default";r=5;t=10`),
			want{HeaderRateLimit, "default", Unknown, 5, 10 * time.Second, 0, 0, ""}},
		{"structured RateLimit without a reset asks no wait",
			header("RateLimit", `"default";r=0`),
			want{HeaderRateLimit, "default", Unknown, 0, -1, 0, 0, ""}},
		{"the exhausted policy wins over one with quota left",
			header("RateLimit-Policy", `"burst";q=20;w=1, "daily";q=1000;w=86400`,
				"RateLimit", `"burst";r=10;t=1, "daily";r=0;t=3600`),
			want{HeaderRateLimit, "daily", 1000, 0, time.Hour, 24 * time.Hour, time.Hour, HeaderRateLimit}},
		{"of two exhausted policies the one that resets last wins",
			header("RateLimit", `"a";r=0;t=5, "b";r=0;t=50`),
			want{HeaderRateLimit, "b", Unknown, 0, 50 * time.Second, 0, 50 * time.Second, HeaderRateLimit}},
		{"of two policies with quota left the lower one wins",
			header("RateLimit", `"a";r=7;t=5, "b";r=3;t=50`),
			want{HeaderRateLimit, "b", Unknown, 3, 50 * time.Second, 0, 0, ""}},
		{"a policy list split over two lines",
			header("RateLimit-Policy", `"burst";q=20;w=1`, "RateLimit-Policy", `"daily";q=1000;w=86400`,
				"RateLimit", `"daily";r=0;t=60`),
			want{HeaderRateLimit, "daily", 1000, 0, time.Minute, 24 * time.Hour, time.Minute, HeaderRateLimit}},
		{"unknown parameters are ignored",
			header("RateLimit", `"default";r=0;t=9;pk=:AQID:;x="y"`),
			want{HeaderRateLimit, "default", Unknown, 0, 9 * time.Second, 0, 9 * time.Second, HeaderRateLimit}},
		{"the draft 07 dictionary form",
			header("RateLimit", "limit=100, remaining=0, reset=30"),
			want{HeaderRateLimit, "", 100, 0, 30 * time.Second, 0, 30 * time.Second, HeaderRateLimit}},
		{"the draft 07 dictionary form with its policy",
			header("RateLimit", "limit=100, remaining=0, reset=30", "RateLimit-Policy", "10;w=1, 100;w=60"),
			want{HeaderRateLimit, "", 100, 0, 30 * time.Second, time.Minute, 30 * time.Second, HeaderRateLimit}},
		{"only a policy gives the quota and no wait",
			header("RateLimit-Policy", `"default";q=100;w=60`),
			want{HeaderRateLimit, "default", 100, Unknown, -1, time.Minute, 0, ""}},
		{"a negative remaining makes RateLimit invalid",
			header("RateLimit", `"default";r=-1;t=30`),
			want{"", "", Unknown, Unknown, -1, 0, 0, ""}},
		{"a decimal reset makes the member invalid",
			header("RateLimit", `"default";r=0;t=1.5`),
			want{"", "", Unknown, Unknown, -1, 0, 0, ""}},
		{"an unparseable RateLimit falls back to X-RateLimit",
			header("RateLimit", `"default";r=0;t=30,`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "12"),
			want{HeaderXRateLimit, "", Unknown, 0, 12 * time.Second, 0, 12 * time.Second, HeaderXRateLimit}},
		{"the draft 06 trio",
			header("RateLimit-Limit", "100", "RateLimit-Remaining", "0", "RateLimit-Reset", "30"),
			want{HeaderRateLimitTrio, "", 100, 0, 30 * time.Second, 0, 30 * time.Second, HeaderRateLimitTrio}},
		{"the draft 06 trio with policies after the limit",
			header("RateLimit-Limit", "100, 100;w=60", "RateLimit-Remaining", "0", "RateLimit-Reset", "30"),
			want{HeaderRateLimitTrio, "", 100, 0, 30 * time.Second, 0, 30 * time.Second, HeaderRateLimitTrio}},
		{"X-RateLimit with an epoch reset",
			header("X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", epoch(45*time.Second)),
			want{HeaderXRateLimit, "", 100, 0, 45 * time.Second, 0, 45 * time.Second, HeaderXRateLimit}},
		{"X-RateLimit with a delta reset",
			header("X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "45"),
			want{HeaderXRateLimit, "", 100, 0, 45 * time.Second, 0, 45 * time.Second, HeaderXRateLimit}},
		{"X-RateLimit with an epoch reset in milliseconds",
			header("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(t0.Add(45*time.Second).UnixMilli(), 10)),
			want{HeaderXRateLimit, "", Unknown, 0, 45 * time.Second, 0, 45 * time.Second, HeaderXRateLimit}},
		{"X-RateLimit with a fractional epoch reset",
			header("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", epoch(45*time.Second)+".5"),
			want{HeaderXRateLimit, "", Unknown, 0, 45*time.Second + 500*time.Millisecond, 0, 45*time.Second + 500*time.Millisecond, HeaderXRateLimit}},
		{"X-RateLimit exactly at 1e9 is a delta",
			header("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1000000000"),
			want{HeaderXRateLimit, "", Unknown, 0, 1_000_000_000 * time.Second, 0, 1_000_000_000 * time.Second, HeaderXRateLimit}},
		{"X-RateLimit with an epoch reset in the past waits 0",
			header("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", epoch(-time.Hour)),
			want{HeaderXRateLimit, "", Unknown, 0, -time.Hour, 0, 0, HeaderXRateLimit}},
		{"X-RateLimit with only a reset",
			header("X-RateLimit-Reset", "20"),
			want{HeaderXRateLimit, "", Unknown, Unknown, 20 * time.Second, 0, 20 * time.Second, HeaderXRateLimit}},
		{"X-RateLimit with quota left asks no wait",
			header("X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "20"),
			want{HeaderXRateLimit, "", Unknown, 3, 20 * time.Second, 0, 0, ""}},
		{"X-RateLimit with an invalid reset keeps the rest",
			header("X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "-5"),
			want{HeaderXRateLimit, "", 100, 0, -1, 0, 0, ""}},
		{"X-RateLimit with a negative remaining",
			header("X-RateLimit-Remaining", "-1"),
			want{"", "", Unknown, Unknown, -1, 0, 0, ""}},
		{"X-RateLimit headers in lowercase",
			header("x-ratelimit-remaining", "0", "x-ratelimit-reset", "7"),
			want{HeaderXRateLimit, "", Unknown, 0, 7 * time.Second, 0, 7 * time.Second, HeaderXRateLimit}},
		{"RateLimit wins over X-RateLimit",
			header("RateLimit", `"default";r=0;t=30`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "5"),
			want{HeaderRateLimit, "default", Unknown, 0, 30 * time.Second, 0, 30 * time.Second, HeaderRateLimit}},
		{"Retry-After wins over every reset",
			header("Retry-After", "3", "RateLimit", `"default";r=0;t=30`, "X-RateLimit-Reset", "5"),
			want{HeaderRateLimit, "default", Unknown, 0, 30 * time.Second, 0, 3 * time.Second, HeaderRetryAfter}},
		{"Retry-After wins even when shorter than X-RateLimit-Reset",
			header("Retry-After", "1", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "60"),
			want{HeaderXRateLimit, "", Unknown, 0, time.Minute, 0, time.Second, HeaderRetryAfter}},
		{"an invalid Retry-After is ignored",
			header("Retry-After", "1.5", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "60"),
			want{HeaderXRateLimit, "", Unknown, 0, time.Minute, 0, time.Minute, HeaderXRateLimit}},
		{"Retry-After as a date",
			header("Retry-After", "Wed, 01 Jan 2025 00:00:10 GMT"),
			want{"", "", Unknown, Unknown, -1, 0, 10 * time.Second, HeaderRetryAfter}},
		{"two identical Retry-After lines count once",
			header("Retry-After", "4", "Retry-After", "4"),
			want{"", "", Unknown, Unknown, -1, 0, 4 * time.Second, HeaderRetryAfter}},
		{"two different Retry-After lines are ignored",
			header("Retry-After", "4", "Retry-After", "8"),
			want{"", "", Unknown, Unknown, -1, 0, 0, ""}},
		{"no rate-limit header at all",
			header("Content-Type", "application/json"),
			want{"", "", Unknown, Unknown, -1, 0, 0, ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParseRateLimit(c.h, t0)
			w := c.want
			var wantReset time.Time
			if w.reset != -1 {
				wantReset = t0.Add(w.reset)
			}
			if got.Header != w.header || got.Policy != w.policy || got.Limit != w.limit ||
				got.Remaining != w.remaining || !got.Reset.Equal(wantReset) || got.Window != w.window {
				t.Errorf("ParseRateLimit = %+v\nwant header %q policy %q limit %d remaining %d reset %v window %v",
					got, w.header, w.policy, w.limit, w.remaining, wantReset, w.window)
			}
			wait, from, ok := got.Wait(t0)
			if ok != (w.waitFrom != "") || wait != w.wait || from != w.waitFrom {
				t.Errorf("Wait = %v, %q, %v; want %v, %q", wait, from, ok, w.wait, w.waitFrom)
			}
			if got.Known() != (w.header != "" || w.waitFrom == HeaderRetryAfter) {
				t.Errorf("Known = %v", got.Known())
			}
		})
	}
}

func TestAHugeRateLimitResetSaturatesInsteadOfWrapping(t *testing.T) {
	info := ParseRateLimit(header("RateLimit", `"d";r=0;t=999999999999999`), t0)
	wait, _, ok := info.Wait(t0)
	if !ok || wait != MaxRetryAfter {
		t.Fatalf("wait = %v, %v; want %v", wait, ok, MaxRetryAfter)
	}
	info = ParseRateLimit(header("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "99999999999999999999999"), t0)
	if wait, _, ok := info.Wait(t0); !ok || wait < 0 || wait > MaxRetryAfter {
		t.Fatalf("wait = %v, %v", wait, ok)
	}
}

func FuzzParseRateLimit(f *testing.F) {
	f.Add(`"default";r=0;t=30`, `"default";q=100;w=60`, "1735689645", "0")
	f.Add("limit=100, remaining=0, reset=30", "100;w=60", "45", "3")
	f.Add(`(1 2);a, "x";r=?1`, `:AQID:;q=1`, "1735689645.5", "-1")
	f.Add(`"a";r=0;t=999999999999999`, "", "99999999999999999999999", "")
	f.Fuzz(func(t *testing.T, rl, policy, xReset, xRemaining string) {
		h := http.Header{}
		h.Set("RateLimit", rl)
		h.Set("RateLimit-Policy", policy)
		h.Set("X-RateLimit-Reset", xReset)
		h.Set("X-RateLimit-Remaining", xRemaining)
		info := ParseRateLimit(h, t0)
		if d, _, ok := info.Wait(t0); ok && (d < 0 || d > MaxRetryAfter) {
			t.Fatalf("wait %v outside [0, %v] for %+v", d, MaxRetryAfter, info)
		}
		if info.Remaining < Unknown || info.Limit < Unknown || info.Window < 0 {
			t.Fatalf("negative counts in %+v", info)
		}
	})
}
