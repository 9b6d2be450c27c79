package projections

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// A history generator for tests and benchmarks: it drives jobs through random legal command
// sequences with domain.Decide and domain.Evolve, interleaves them at random, and hands out each
// command's events (one append) with increasing times. Payloads have realistic sizes (the
// development chain's: 32-byte handles and hashes, 65-byte signatures, three KMS shares).

// genAppend is one command's events for one job, appended together.
type genAppend struct {
	job    domain.JobID
	stream string
	// expected is the stream's version before the append (NoStream for the first).
	expected eventstore.Version
	events   []domain.Event
}

type genOptions struct {
	jobs int
	// active is how many jobs are in flight at once (the interleaving width).
	active int
	// unfinished is the fraction of jobs left wherever they are when the history ends.
	unfinished float64
	start      time.Time
	// step is the largest time between two commands.
	step time.Duration
	// sameHash is the chance a new job repeats an earlier job's request (same content hash).
	sameHash float64
}

type genJob struct {
	state domain.State
	// countdown is how many more commands an unfinished job takes before it stops where it is;
	// -1 for a job that runs to its end.
	countdown int
}

type generator struct {
	rng   *rand.Rand
	opts  genOptions
	now   time.Time
	made  int
	live  []*genJob // jobs that still move
	reqs  []domain.Request
	nonce uint64
}

func newGenerator(seed uint64, opts genOptions) *generator {
	if opts.start.IsZero() {
		opts.start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	}
	if opts.step == 0 {
		opts.step = 40 * time.Millisecond
	}
	if opts.active == 0 {
		opts.active = 64
	}
	return &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), opts: opts, now: opts.start}
}

// next returns the next append, and false when the history is over.
func (g *generator) next() (genAppend, bool) {
	for {
		canAccept := g.made < g.opts.jobs
		if !canAccept && len(g.live) == 0 {
			return genAppend{}, false
		}
		g.now = g.now.Add(time.Duration(g.rng.Int64N(int64(g.opts.step) + 1)))
		if canAccept && (len(g.live) == 0 || len(g.live) < g.opts.active && g.rng.IntN(3) == 0) {
			return g.accept(), true
		}
		i := g.rng.IntN(len(g.live))
		j := g.live[i]
		a, ok := g.advance(j)
		// A job that failed or timed out may still be linked to its retry (JobRetried).
		retriable := (j.state.Status == domain.Failure || j.state.Status == domain.TimedOut) && j.state.RetriedAs.IsZero()
		if (j.state.Status.Terminal() && !(retriable && ok && g.rng.IntN(3) == 0)) || j.countdown == 0 {
			g.live[i] = g.live[len(g.live)-1]
			g.live = g.live[:len(g.live)-1]
		}
		if ok {
			return a, true
		}
	}
}

func (g *generator) accept() genAppend {
	g.made++
	id := g.jobID()
	var req domain.Request
	if len(g.reqs) > 0 && g.rng.Float64() < g.opts.sameHash {
		req = g.reqs[g.rng.IntN(len(g.reqs))]
	} else {
		req = g.request()
		if len(g.reqs) < 1024 {
			g.reqs = append(g.reqs, req)
		} else {
			g.reqs[g.rng.IntN(len(g.reqs))] = req
		}
	}
	cmd := domain.Accept{At: domain.At{At: g.now}, JobID: id, Request: req, ContentHash: domain.ContentHash(req)}
	if g.rng.IntN(16) == 0 {
		cmd.RetryOf = &domain.RetryOf{JobID: g.jobID(), Who: "admin:0a1b2c3d", Reason: "the contract is fixed"}
	}
	j := &genJob{countdown: -1}
	if g.rng.Float64() < g.opts.unfinished {
		// Unfinished jobs stop after a few commands, so they stop in every status; some stay
		// where they were accepted.
		j.countdown = g.rng.IntN(6)
	}
	events := g.decide(j, cmd)
	if j.countdown != 0 {
		g.live = append(g.live, j)
	}
	return genAppend{job: id, stream: id.Stream(), expected: eventstore.NoStream, events: events}
}

// jobID is a random version 4 UUID from the generator's rng, so histories are reproducible.
func (g *generator) jobID() domain.JobID {
	var id domain.JobID
	binary.LittleEndian.PutUint64(id[:8], g.rng.Uint64())
	binary.LittleEndian.PutUint64(id[8:], g.rng.Uint64())
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

func (g *generator) hex(n int) string {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], g.rng.Uint64())
		copy(b[i:], w[:])
	}
	return "0x" + hex.EncodeToString(b)
}

func (g *generator) handle() string {
	var h [32]byte
	for i := 0; i < 32; i += 8 {
		binary.LittleEndian.PutUint64(h[i:], g.rng.Uint64())
	}
	binary.BigEndian.PutUint64(h[22:30], 1337)
	return "0x" + hex.EncodeToString(h[:])
}

func (g *generator) request() domain.Request {
	switch g.rng.IntN(3) {
	case 0:
		return domain.Request{InputProof: &domain.InputProofRequest{
			ContractChainID: 1337, ContractAddress: g.hex(20), UserAddress: g.hex(20),
			Ciphertext: g.hex(96)[2:], ExtraData: "0x00"}}
	case 1:
		return domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{g.handle(), g.handle()}, ExtraData: "0x00"}}
	default:
		contract := g.hex(20)
		return domain.Request{UserDecrypt: &domain.UserDecryptRequest{
			HandleContractPairs: []domain.HandleContractPair{{Handle: g.handle(), ContractAddress: contract}},
			RequestValidity:     domain.RequestValidity{StartTimestamp: 1_790_000_000, DurationDays: 1},
			ContractsChainID:    1337, ContractAddresses: []string{contract}, UserAddress: g.hex(20),
			Signature: g.hex(65)[2:], PublicKey: g.hex(32)[2:], ExtraData: "0x00"}}
	}
}

// decide runs cmd on j through the state machine and evolves j; it panics on a rule violation,
// since the generator only issues legal commands.
func (g *generator) decide(j *genJob, cmd domain.Command) []domain.Event {
	events, err := domain.Decide(j.state, cmd)
	if err != nil {
		panic(fmt.Sprintf("generator issued an illegal command: %v", err))
	}
	for _, e := range events {
		j.state = domain.Evolve(j.state, e)
	}
	return events
}

// advance issues one random legal command to j.
func (g *generator) advance(j *genJob) (genAppend, bool) {
	s := j.state
	at := domain.At{At: g.now}
	var cmd domain.Command
	r := g.rng.IntN(100)
	switch s.Status {
	case domain.Queued:
		switch {
		case r < 3:
			cmd = domain.TimeOutReadiness{At: at}
		case r < 7:
			cmd = domain.FailReadiness{At: at, Label: domain.LabelNotAllowedOnHostACL, Message: "handle not allowed for the user on the host ACL"}
		case r < 8:
			cmd = domain.Fail{At: at, Label: domain.LabelInternalServerError, Message: "internal error"}
		case r < 9:
			cmd = domain.Cancel{At: at, Who: "admin:0a1b2c3d", Reason: "the contract was misconfigured"}
		case !s.ReadinessStarted || r < 12:
			// A second pickup happens after a restart.
			cmd = domain.StartReadiness{At: at}
		case r < 30 && s.ReadinessStarted:
			return genAppend{}, false // the check is still running
		default:
			cmd = domain.PassReadiness{At: at}
		}
	case domain.Processing:
		switch {
		case s.RetryAt.After(g.now) && r%2 == 0:
			cmd = domain.Retry{At: at, Who: "admin:0a1b2c3d", Reason: "the node is back"}
		case r < 4:
			cmd = domain.FailTransaction{At: at, Label: domain.LabelTransactionFailed, Message: "nonce too low"}
		case r < 5:
			cmd = domain.Fail{At: at, Label: domain.LabelInternalServerError}
		case r < 6:
			cmd = domain.Cancel{At: at, Who: "operator:0a1b2c3d", Reason: "asked by the user"}
		case r < 10:
			cmd = domain.ScheduleRetry{At: at, Step: "prepare", Attempt: int(r), Reason: "transport error", NextAt: at.At.Add(time.Duration(r) * time.Second)}
		default:
			g.nonce++
			cmd = domain.SignTransaction{At: at, From: "0xa1" + g.hex(19)[2:], Nonce: g.nonce, TxHash: g.hex(32), RawTx: g.hex(120)}
		}
	case domain.TxInFlight:
		switch {
		case r < 8:
			cmd = domain.ResetTransaction{At: at, Reason: "recovery: transaction not on chain and never will be"}
		case r < 12:
			cmd = domain.FailTransaction{At: at, Label: domain.LabelTransactionReverted, Message: "execution reverted"}
		case r < 20 && s.Cancelling == nil:
			cmd = domain.ReplaceTransaction{At: at, Replaces: s.TxHash, TxHash: g.hex(32), RawTx: g.hex(120), GasFeeCap: fmt.Sprint(g.rng.Uint64()), GasTipCap: "1000000000"}
		case r < 23 && s.Cancelling == nil:
			cmd = domain.Cancel{At: at, Who: "admin:0a1b2c3d", Reason: "stuck behind a misconfigured contract"}
		case r < 27 && s.Cancelling != nil && s.CancelTx == "":
			cmd = domain.ReplaceTransaction{At: at, Replaces: s.TxHash, TxHash: g.hex(32), RawTx: g.hex(60), GasFeeCap: fmt.Sprint(g.rng.Uint64()), GasTipCap: "2000000000", Cancel: true}
		case r < 30 && s.CancelTx != "":
			cmd = domain.ConfirmCancel{At: at, TxHash: s.CancelTx, BlockNumber: 1000 + g.nonce}
		default:
			// Any of the nonce's transactions may be the one mined (but a cancel's no-op).
			sent := s.Sent()
			if s.CancelTx != "" {
				sent = sent[1:]
			}
			cmd = domain.RecordReceipt{At: at, TxHash: sent[int(g.rng.Uint64()%uint64(len(sent)))].TxHash, BlockNumber: 1000 + g.nonce, GatewayRequestID: fmt.Sprint(g.rng.Uint64())}
		}
	case domain.ReceiptReceived:
		switch {
		case r < 4:
			cmd = domain.TimeOutResponse{At: at}
		case r < 5:
			cmd = domain.Fail{At: at, Label: domain.LabelInternalServerError, Message: "\"quoted\" <html> & \u2028 line"}
		case r < 10 && s.Kind == domain.InputProof:
			cmd = domain.RejectProof{At: at, ExtraData: "0x00"}
		case r < 10 && s.Kind == domain.PublicDecrypt:
			return genAppend{}, false
		default:
			cmd = g.respond(s, at)
		}
	case domain.Failure, domain.TimedOut:
		if !s.RetriedAs.IsZero() {
			return genAppend{}, false
		}
		cmd = domain.LinkRetry{At: at, Who: "admin:0a1b2c3d", Reason: "the contract is fixed", NewJob: g.jobID()}
	default:
		return genAppend{}, false
	}
	if j.countdown > 0 {
		j.countdown--
	}
	version := eventstore.Version(s.Events - 1)
	return genAppend{job: s.JobID, stream: s.JobID.Stream(), expected: version, events: g.decide(j, cmd)}, true
}

func (g *generator) respond(s domain.State, at domain.At) domain.Command {
	switch s.Kind {
	case domain.InputProof:
		return domain.Complete{At: at, Result: domain.Result{InputProof: &domain.InputProofResult{
			Accepted: true, Handles: []string{g.handle()}, Signatures: []string{g.hex(65), g.hex(65)}, ExtraData: "0x00"}}}
	case domain.PublicDecrypt:
		return domain.Complete{At: at, Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
			DecryptedValue: g.hex(32), Signatures: []string{g.hex(65), g.hex(65), g.hex(65)}, ExtraData: "0x00"}}}
	default:
		node := len(s.Shares)
		return domain.RecordShare{At: at, Threshold: 3, Share: domain.Share{
			Signer: fmt.Sprintf("0x%040x", 0xc0ffee00+node), Payload: g.hex(64), Signature: g.hex(65), ExtraData: "0x00"}}
	}
}
