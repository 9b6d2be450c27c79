package delivery

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain"
	"relayer/domain/webhook"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/lease"
)

// checkInOrder checks that the first deliveries of ds are exactly want (the log's transitions an
// endpoint should hear about), in the log's order.
func checkInOrder(t *testing.T, ds []delivery, want []projections.Transition) {
	t.Helper()
	first := firstDeliveries(ds)
	if len(first) != len(want) {
		t.Fatalf("%d transitions delivered, want %d", len(first), len(want))
	}
	for i, d := range first {
		var got projections.Transition
		if err := json.Unmarshal(d.body, &got); err != nil {
			t.Fatalf("delivery %d: body %s: %v", i, d.body, err)
		}
		if got != want[i] {
			t.Fatalf("delivery %d is %+v, want %+v", i, got, want[i])
		}
		if d.id != webhook.EventID(domain.StreamPrefix+got.JobID, got.Version) {
			t.Fatalf("delivery %d has webhook-id %s, not its event's id", i, d.id)
		}
	}
}

func TestEveryTransitionReachesTheEndpointOnceInTheLogsOrderSignedWithItsSecret(t *testing.T) {
	env := newDT(t)
	env.jobs(0, 3) // before the registration: not delivered
	rcv := newReceiver(t, nil)
	id, secret := env.register(rcv.srv.URL+"/hooks", webhook.Filter{})
	before := len(env.transitions())
	s, _ := env.start(dtConfig(), Deps{})
	env.jobs(3, 20)
	want := env.transitions()[before:]
	waitFor(t, 10*time.Second, "80 deliveries", func() bool { return rcv.count() >= len(want) })
	time.Sleep(100 * time.Millisecond)
	got := rcv.deliveries()
	if len(got) != len(want) {
		t.Fatalf("%d deliveries, want %d: nothing fails, so nothing is delivered twice", len(got), len(want))
	}
	checkInOrder(t, got, want)
	for _, d := range got {
		checkSigned(t, d, secret)
		if d.tr.From == "" && d.tr.EventType != "RequestAccepted" {
			t.Errorf("delivery %s has no from status", d.id)
		}
	}
	if n := metric(t, s, "relayer_webhook_deliveries_total", id); n != float64(len(want)) {
		t.Errorf("relayer_webhook_deliveries_total %v, want %d", n, len(want))
	}
	waitFor(t, 5*time.Second, "no lag", func() bool { return metric(t, s, "relayer_webhook_lag_positions", id) == 0 })
}

func TestAnEndpointHearsOnlyAboutTheTransitionsItsFilterLetsThrough(t *testing.T) {
	env := newDT(t)
	rcv := newReceiver(t, nil)
	f, issues := webhook.ParseFilter([]string{"input-proof"}, []string{"completed", "tx_in_flight"}, nil)
	if len(issues) > 0 {
		t.Fatal(issues)
	}
	env.register(rcv.srv.URL, f)
	other := newReceiver(t, nil)
	byType, _ := webhook.ParseFilter(nil, nil, []string{"ReceiptRecorded"})
	env.register(other.srv.URL, byType)
	none := newReceiver(t, nil)
	decrypts, _ := webhook.ParseFilter([]string{"user-decrypt"}, nil, nil)
	env.register(none.srv.URL, decrypts)
	env.start(dtConfig(), Deps{})
	env.jobs(0, 10)
	waitFor(t, 10*time.Second, "the filtered deliveries", func() bool { return rcv.count() >= 20 && other.count() >= 10 })
	time.Sleep(200 * time.Millisecond)
	for _, d := range rcv.deliveries() {
		if d.tr.To != "completed" && d.tr.To != "tx_in_flight" {
			t.Errorf("delivered a transition to %s", d.tr.To)
		}
	}
	for _, d := range other.deliveries() {
		if d.tr.EventType != "ReceiptRecorded" {
			t.Errorf("delivered a %s", d.tr.EventType)
		}
	}
	if rcv.count() != 20 || other.count() != 10 || none.count() != 0 {
		t.Errorf("deliveries %d, %d, %d; want 20, 10, 0", rcv.count(), other.count(), none.count())
	}
}

func TestAFailingEndpointGetsTheSameTransitionAgainAndNothingIsSkipped(t *testing.T) {
	env := newDT(t)
	// 500, a redirect and a timeout, by turns with successes.
	rcv := newReceiver(t, func(n int, d delivery) int {
		switch n % 7 {
		case 1:
			return http.StatusInternalServerError
		case 3:
			return http.StatusFound
		case 4:
			if n%14 == 4 {
				time.Sleep(700 * time.Millisecond) // past the 500 ms timeout
			}
		}
		return http.StatusOK
	})
	id, secret := env.register(rcv.srv.URL, webhook.Filter{})
	s, _ := env.start(dtConfig(), Deps{})
	env.jobs(0, 10)
	want := env.transitions()
	waitFor(t, 20*time.Second, "every transition delivered", func() bool { return len(firstDeliveries(rcv.deliveries())) >= len(want) })
	// The first delivery of each event is in the log's order; a failed one came again before the
	// next event was sent.
	got := rcv.deliveries()
	checkInOrder(t, got, want)
	for _, d := range got {
		checkSigned(t, d, secret)
	}
	if f := metric(t, s, "relayer_webhook_delivery_failures_total", id); f < 3 {
		t.Errorf("relayer_webhook_delivery_failures_total %v, want the failures counted", f)
	}
	if !strings.Contains(env.logs.String(), "webhook delivery failed; trying again") {
		t.Error("the failures were not logged")
	}
}

func TestAnEndpointFailingForDisableAfterIsDisabledWithAnEventAndResumesWhereItStoppedWhenEnabled(t *testing.T) {
	env := newDT(t)
	rcv, healthy := newFailingReceiver(t)
	id, _ := env.register(rcv.srv.URL+"/path-with-token-abc123", webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.DisableAfter = 400 * time.Millisecond
	s, _ := env.start(cfg, Deps{})
	env.jobs(0, 5)
	disabled := env.waitDisabled(t)
	if disabled.ID != id || disabled.Who != "" || disabled.FailingSince.IsZero() || !strings.Contains(disabled.Reason, "503") {
		t.Fatalf("disabled: %+v", disabled)
	}
	if strings.Contains(disabled.Reason, "abc123") || strings.Contains(env.logs.String(), "abc123") {
		t.Error("the reason or the log shows the URL's path")
	}
	waitFor(t, 5*time.Second, "the disabled gauge", func() bool { return metric(t, s, "relayer_webhook_disabled", id) == 1 })
	// No failure streak runs while the endpoint is disabled (found by an outside probe: the
	// failing-seconds gauge kept growing, and its alert fired for as long as it stayed so).
	if f := metric(t, s, "relayer_webhook_failing_seconds", id); f != 0 {
		t.Errorf("relayer_webhook_failing_seconds %v while disabled, want 0", f)
	}
	n := rcv.count()
	time.Sleep(300 * time.Millisecond)
	if rcv.count() != n {
		t.Errorf("%d more attempts after the endpoint was disabled", rcv.count()-n)
	}
	if got := firstDeliveries(rcv.deliveries()); len(got) != 1 {
		t.Errorf("%d events attempted while the first kept failing, want 1: nothing may be skipped ahead", len(got))
	}

	// Enabled again (and healthy), it delivers everything from where it stopped.
	healthy.Store(true)
	env.change(func(r webhook.Registry) (webhook.Event, error) { return r.Enable(id, "admin-test", time.Now()) })
	want := env.transitions()
	waitFor(t, 10*time.Second, "the backlog", func() bool { return len(firstDeliveries(rcv.deliveries())) >= len(want) })
	checkInOrder(t, rcv.deliveries(), want)
	waitFor(t, 5*time.Second, "the gauge cleared", func() bool { return metric(t, s, "relayer_webhook_disabled", id) == 0 })
}

// newFailingReceiver is a receiver that answers 503 until healthy is set, then 200.
func newFailingReceiver(t *testing.T) (*receiver, *atomic.Bool) {
	healthy := &atomic.Bool{}
	return newReceiver(t, func(int, delivery) int {
		if healthy.Load() {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	}), healthy
}

// stuckSince is the failure streak's start that endpoint id's checkpoint holds (zero: none).
func (e *dtEnv) stuckSince(id string) time.Time {
	e.t.Helper()
	cp, err := workers.LoadCheckpoint(context.Background(), e.store, CheckpointPrefix+id, workers.CheckpointConfig{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cp.StuckSince()
}

// savedStreak waits for endpoint id's checkpoint to hold a failure streak, and returns its start.
func (e *dtEnv) savedStreak(t *testing.T, id string) time.Time {
	t.Helper()
	waitFor(t, 10*time.Second, "the streak saved", func() bool { return !e.stuckSince(id).IsZero() })
	return e.stuckSince(id)
}

// fleetLease is instance name's webhooks lease in the fleet tests: long enough that a loaded
// machine does not starve its holder's renewals (a stopped holder releases it, so a takeover
// does not wait for it to lapse).
func fleetLease(name string) *lease.Config {
	return &lease.Config{Holder: name, Duration: 5 * time.Second, Renew: time.Second}
}

// waitDisabled waits for the webhooks stream's first WebhookDisabled and returns it.
func (e *dtEnv) waitDisabled(t *testing.T) webhook.Disabled {
	t.Helper()
	var disabled webhook.Disabled
	waitFor(t, 10*time.Second, "WebhookDisabled", func() bool {
		for rec, err := range e.store.ReadStream(context.Background(), webhook.Stream, 0) {
			if err != nil {
				t.Fatal(err)
			}
			if ev, _ := e.codec.Decode(rec); ev != nil {
				if d, ok := ev.(webhook.Disabled); ok {
					disabled = d
					return true
				}
			}
		}
		return false
	})
	return disabled
}

// A restart (or another instance taking the deliveries over) goes on with the failure streak
// that was running: found by an outside probe, the streak began anew at every start, so an
// endpoint failing across frequent restarts was disabled late or never.
func TestAFailureStreakGoesOnAcrossARestart(t *testing.T) {
	env := newDT(t)
	rcv := newReceiver(t, func(int, delivery) int { return http.StatusServiceUnavailable })
	id, _ := env.register(rcv.srv.URL, webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.DisableAfter = 3 * time.Second
	_, stop := env.start(cfg, Deps{})
	env.jobs(0, 2)
	began := env.savedStreak(t, id)
	time.Sleep(500 * time.Millisecond)
	stop()
	restarted := time.Now()
	s, _ := env.start(cfg, Deps{})
	waitFor(t, 10*time.Second, "the streak taken up", func() bool { return metric(t, s, "relayer_webhook_failing_seconds", id) > 0 })
	if f := metric(t, s, "relayer_webhook_failing_seconds", id); f < time.Since(began).Seconds()-1 {
		t.Errorf("relayer_webhook_failing_seconds %v after the restart, want the streak since %s (%.1f s)", f, began, time.Since(began).Seconds())
	}
	disabled := env.waitDisabled(t)
	if disabled.ID != id || !disabled.FailingSince.Equal(began) || !disabled.FailingSince.Before(restarted) {
		t.Fatalf("disabled %+v: want the streak that began at %s, before the restart at %s", disabled, began, restarted)
	}
}

// In a fleet, the instance that takes the deliveries over goes on with the failure streak the
// last holder saved, rather than beginning one anew.
func TestAFailureStreakGoesOnWhenAnotherInstanceTakesTheDeliveriesOver(t *testing.T) {
	env := newDT(t)
	rcv, _ := newFailingReceiver(t)
	id, _ := env.register(rcv.srv.URL, webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.DisableAfter = 3 * time.Second
	a, stopA := env.start(cfg, Deps{Lease: fleetLease("a")})
	waitFor(t, 5*time.Second, "a holds the lease", func() bool { return a.metrics.leaseHeld.Load() })
	b, _ := env.start(cfg, Deps{Lease: fleetLease("b")})
	env.jobs(0, 2)
	began := env.savedStreak(t, id)
	time.Sleep(500 * time.Millisecond)
	stopA()
	handedOver := time.Now()
	waitFor(t, 10*time.Second, "b takes over", func() bool { return b.metrics.leaseHeld.Load() })
	disabled := env.waitDisabled(t)
	if !disabled.FailingSince.Equal(began) || !disabled.FailingSince.Before(handedOver) {
		t.Fatalf("disabled %+v: want the streak a saved at %s, before the handover at %s", disabled, began, handedOver)
	}
}

// A success ends the saved streak at once: a restart after it, failing again, begins a streak of
// its own rather than taking up the old one; and an endpoint enabled again leaves the streak
// that disabled it behind.
func TestASuccessOrAnEnableEndsTheSavedFailureStreak(t *testing.T) {
	env := newDT(t)
	rcv, healthy := newFailingReceiver(t)
	id, _ := env.register(rcv.srv.URL, webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.DisableAfter = time.Second
	_, stop := env.start(cfg, Deps{})
	env.jobs(0, 2)
	first := env.savedStreak(t, id)
	healthy.Store(true)
	waitFor(t, 10*time.Second, "the streak's end saved", func() bool { return env.stuckSince(id).IsZero() })
	stop()

	healthy.Store(false)
	env.jobs(2, 1)
	restarted := time.Now()
	env.start(cfg, Deps{})
	disabled := env.waitDisabled(t)
	if disabled.FailingSince.Before(restarted) || !disabled.FailingSince.After(first) {
		t.Fatalf("disabled %+v: want a streak begun after the restart at %s", disabled, restarted)
	}
	if env.stuckSince(id).IsZero() {
		t.Fatal("the streak that disabled the endpoint is not in its checkpoint")
	}
	// Enabled again, the endpoint's old streak is over: its checkpoint says so before anything
	// fails again.
	healthy.Store(true)
	env.change(func(r webhook.Registry) (webhook.Event, error) { return r.Enable(id, "admin-test", time.Now()) })
	waitFor(t, 10*time.Second, "the old streak cleared", func() bool { return env.stuckSince(id).IsZero() })
}

func TestAConnectionToALoopbackAddressIsRefusedWhenTheDeliveryIsMade(t *testing.T) {
	env := newDT(t)
	rcv := newReceiver(t, nil)
	// Registered as if it had resolved to a public address: the delivery's dial must refuse it.
	id, _ := env.register(strings.Replace(rcv.srv.URL, "127.0.0.1", "localhost", 1), webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.AllowPrivate = false
	s, _ := env.start(cfg, Deps{})
	env.jobs(0, 1)
	waitFor(t, 10*time.Second, "refused attempts", func() bool { return metric(t, s, "relayer_webhook_delivery_failures_total", id) >= 3 })
	if rcv.count() != 0 {
		t.Fatalf("the receiver on loopback got %d requests", rcv.count())
	}
	if !strings.Contains(env.logs.String(), "non-public address") {
		t.Errorf("the log does not say why:\n%s", env.logs.String())
	}
}

func TestDeliveriesResumeFromTheCheckpointAfterARestartWithoutAGap(t *testing.T) {
	env := newDT(t)
	rcv := newReceiver(t, nil)
	env.register(rcv.srv.URL, webhook.Filter{})
	_, stop := env.start(dtConfig(), Deps{})
	env.jobs(0, 10)
	waitFor(t, 10*time.Second, "the first deliveries", func() bool { return rcv.count() >= 40 })
	stop()
	env.jobs(10, 10) // while it is down
	env.start(dtConfig(), Deps{})
	want := env.transitions()
	waitFor(t, 10*time.Second, "the rest", func() bool { return len(firstDeliveries(rcv.deliveries())) >= len(want) })
	checkInOrder(t, rcv.deliveries(), want)
	if dup := rcv.count() - len(want); dup > 0 {
		t.Logf("%d transitions delivered again after the restart (saved checkpoint behind)", dup)
	}
}

func TestDuringARotationsOverlapADeliveryCarriesBothSignatures(t *testing.T) {
	env := newDT(t)
	rcv := newReceiver(t, nil)
	id, old := env.register(rcv.srv.URL, webhook.Filter{})
	env.start(dtConfig(), Deps{})
	env.jobs(0, 1)
	waitFor(t, 5*time.Second, "the first job", func() bool { return rcv.count() >= 4 })
	next := env.rotate(id, time.Hour)
	time.Sleep(200 * time.Millisecond) // the manager folds the rotation
	env.jobs(1, 1)
	waitFor(t, 5*time.Second, "the second job", func() bool { return rcv.count() >= 8 })
	got := rcv.deliveries()
	checkSigned(t, got[0], old)
	for _, d := range got[4:] {
		checkSigned(t, d, old, next)
		if len(strings.Split(d.signature, " ")) != 2 {
			t.Errorf("signature %q: want two", d.signature)
		}
	}
	// Without overlap, the old secret stops at once.
	newest := env.rotate(id, 0)
	time.Sleep(200 * time.Millisecond)
	env.jobs(2, 1)
	waitFor(t, 5*time.Second, "the third job", func() bool { return rcv.count() >= 12 })
	for _, d := range rcv.deliveries()[8:] {
		checkSigned(t, d, newest)
		if strings.Contains(d.signature, " ") {
			t.Errorf("signature %q after a rotation without overlap: want one", d.signature)
		}
	}
}

func TestASlowEndpointHoldsBackNoOtherEndpoint(t *testing.T) {
	env := newDT(t)
	slow := newReceiver(t, func(int, delivery) int { time.Sleep(2 * time.Second); return http.StatusOK })
	fast := newReceiver(t, nil)
	env.register(slow.srv.URL, webhook.Filter{})
	env.register(fast.srv.URL, webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.Timeout = 10 * time.Second
	env.start(cfg, Deps{})
	start := time.Now()
	env.jobs(0, 10)
	waitFor(t, 5*time.Second, "the fast endpoint's 40 deliveries", func() bool { return fast.count() >= 40 })
	if slow.count() > 2 {
		t.Errorf("the slow endpoint got %d deliveries in %s", slow.count(), time.Since(start))
	}
}

func TestInAFleetOneInstanceDeliversAtATimeAndAnotherTakesOverWithoutLosingAny(t *testing.T) {
	env := newDT(t)
	rcv := newReceiver(t, nil)
	env.register(rcv.srv.URL, webhook.Filter{})
	a, stopA := env.start(dtConfig(), Deps{Lease: fleetLease("a")})
	waitFor(t, 5*time.Second, "a holds the lease", func() bool { return a.metrics.leaseHeld.Load() })
	b, _ := env.start(dtConfig(), Deps{Lease: fleetLease("b")})
	env.jobs(0, 10)
	waitFor(t, 10*time.Second, "the first deliveries", func() bool { return rcv.count() >= 40 })
	time.Sleep(300 * time.Millisecond)
	if rcv.count() != 40 || b.metrics.leaseHeld.Load() {
		t.Fatalf("%d deliveries of 40 transitions, b holds the lease: %v; one instance must deliver", rcv.count(), b.metrics.leaseHeld.Load())
	}
	stopA()
	env.jobs(10, 10)
	waitFor(t, 10*time.Second, "b takes over", func() bool { return b.metrics.leaseHeld.Load() })
	want := env.transitions()
	waitFor(t, 10*time.Second, "every transition", func() bool { return len(firstDeliveries(rcv.deliveries())) >= len(want) })
	checkInOrder(t, rcv.deliveries(), want)
}

func TestWithoutASealingKeyNothingIsDeliveredAndNoEndpointIsDisabled(t *testing.T) {
	env := newDT(t)
	rcv := newReceiver(t, nil)
	id, _ := env.register(rcv.srv.URL, webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.SecretKey = ""
	cfg.Webhooks.DisableAfter = 200 * time.Millisecond
	s, _ := env.start(cfg, Deps{})
	env.jobs(0, 2)
	waitFor(t, 5*time.Second, "the warning", func() bool { return strings.Contains(env.logs.String(), "webhooks.secret_key is not set") })
	time.Sleep(400 * time.Millisecond)
	if rcv.count() != 0 || metric(t, s, "relayer_webhook_disabled", id) != 0 {
		t.Fatalf("%d deliveries, disabled %v: want none, and the endpoint left as it is", rcv.count(), metric(t, s, "relayer_webhook_disabled", id))
	}
}
