package retryafter

import (
	"testing"
	"time"
)

var sink Estimate

// BenchmarkCompute measures one hint per row kind of the seed's tables.
func BenchmarkCompute(b *testing.B) {
	cfg := DefaultConfig()
	cases := []struct {
		name string
		in   Input
	}{
		{"input_proof_tx_queue", Input{Kind: InputProof, Status: Processing, Position: 123}},
		{"decrypt_readiness_queue", Input{Kind: UserDecrypt, Status: Queued, Position: 40, TxQueueLen: 900}},
		{"decrypt_out_of_readiness", Input{Kind: PublicDecrypt, Status: Processing, Stage: StageAwaitingTxQueue, TxQueueLen: 900}},
		{"receipt_received", Input{Kind: PublicDecrypt, Status: ReceiptReceived, Elapsed: 7 * time.Minute}},
		{"completed", Input{Kind: InputProof, Status: Completed}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Compute(cfg, c.in)
			}
		})
	}
}

func BenchmarkRetryAfterMs(b *testing.B) {
	cfg := DefaultRetryPolicy()
	u := func() float64 { return 0.5 }
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += RetryAfterMs(concurrency, 7, cfg, u)
	}
	_ = n
}

func BenchmarkDenyTrackerIncrement(b *testing.B) {
	tr := NewDenyTracker(TrackerConfig{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		tr.Increment("client", t0.Add(time.Duration(i)))
		i++
	}
}
