package workers

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/gateway"
)

// ResponsesCursorConsumer names the gateway block cursor's stream: "checkpoint-gateway-responses".
const ResponsesCursorConsumer = "gateway-responses"

// BlockCursorSaved records where the responses listener resumes on the gateway chain.
type BlockCursorSaved struct {
	Block uint64      `json:"block"`
	Hash  common.Hash `json:"hash"`
	At    time.Time   `json:"at"`
}

// EventType names the event in the store.
func (BlockCursorSaved) EventType() string { return "BlockCursorSaved" }

// responsesWorker turns the gateway's response events into job events. The listener reads
// them block range by block range from a cursor kept in the event store and publishes each on
// TopicGatewayResponses; the handler finds the job by the gateway request id and records the
// response. A response whose request id no job has recorded yet (it came before the receipt
// was appended) is kept and applied when the receipt is (register); one for a job that has
// ended changes nothing. The cursor is saved only after the batch's events were handled, and
// never past a kept response: after a crash the listener reads those blocks again.
type responsesWorker struct {
	e *Engine

	mu    sync.Mutex
	index map[responseKey]domain.JobID
	byJob map[domain.JobID]responseKey
	// states caches the indexed jobs' last known state, which saves a read of the stream per
	// response (a stale one only costs a failed append and the read).
	states map[domain.JobID]domain.State
	// ended holds the request ids of jobs that ended, with when: their late responses (a share
	// past the threshold, an answer after a timeout) are dropped, not kept. Entries expire
	// after ResponseBufferTTL.
	ended  map[responseKey]time.Time
	buffer map[responseKey][]bufferedResponse

	cursor eventstore.Folded[BlockCursorSaved] // the block cursor as last saved, and its stream's version

	// retiredSeen is how many retired jobs the read models had at dropRetired's last look.
	retiredSeen int
}

type responseKey struct {
	kind int
	id   string
}

type bufferedResponse struct {
	ev      gateway.Event
	msgID   string // the message that carried it: what its job event is caused by
	arrived time.Time
}

func newResponsesWorker(e *Engine) *responsesWorker {
	return &responsesWorker{
		e: e, index: map[responseKey]domain.JobID{}, byJob: map[domain.JobID]responseKey{}, states: map[domain.JobID]domain.State{},
		ended: map[responseKey]time.Time{}, buffer: map[responseKey][]bufferedResponse{},
		cursor: eventstore.NewFolded(BlockCursorSaved{}),
	}
}

func keyOf(k domain.Kind, requestID string) responseKey {
	return responseKey{k.Family().Ordinal(), requestID}
}

// register tells which job gateway request requestID of kind k belongs to, and applies the
// responses that came before.
// s, when not zero, is the job's state after its receipt.
func (w *responsesWorker) register(ctx context.Context, k domain.Kind, requestID string, id domain.JobID, s domain.State) error {
	key := keyOf(k, requestID)
	// A job that ended, or another key's (Leader: its responses are that shard's to record):
	// its responses are dropped here.
	if j, ok := w.e.set.Job(id); !w.e.shard.owns(id) || ok && j.Status.Terminal() {
		w.mu.Lock()
		w.ended[key] = time.Now()
		delete(w.buffer, key)
		w.mu.Unlock()
		return nil
	}
	w.mu.Lock()
	w.index[key] = id
	w.byJob[id] = key
	if s.Status == domain.ReceiptReceived {
		w.states[id] = s
	}
	w.mu.Unlock()
	if w.e.set.Retired(id) {
		// Retired (forgotten open, see dropRetired) after the look above: dropRetired may
		// have looked before the entry was there.
		w.jobEnded(id)
		return nil
	}
	return w.applyKept(ctx, key, id, time.Now()) // the receipt, which enables them, is recorded
}

// applyKept applies the responses kept for key, in order, to job id. Each stays kept (and
// holds the cursor) until its event is appended; on an error the rest wait for the next try.
func (w *responsesWorker) applyKept(ctx context.Context, key responseKey, id domain.JobID, since time.Time) error {
	w.mu.Lock()
	kept := slices.Clone(w.buffer[key])
	w.mu.Unlock()
	for _, b := range kept {
		if err := w.apply(ctx, id, b.ev, b.msgID, since); err != nil {
			return err
		}
		w.mu.Lock()
		w.buffer[key] = slices.DeleteFunc(w.buffer[key], func(x bufferedResponse) bool { return sameLog(x.ev, b.ev) })
		if len(w.buffer[key]) == 0 {
			delete(w.buffer, key)
		}
		w.mu.Unlock()
	}
	return nil
}

// retryKept applies the kept responses whose job is known by now: those whose first try failed
// (the log could not be written) and those a failed register left.
func (w *responsesWorker) retryKept(ctx context.Context) {
	w.mu.Lock()
	var keys []responseKey
	for key, kept := range w.buffer {
		if _, ok := w.index[key]; ok {
			keys = append(keys, key)
		} else if len(kept) > 0 && w.notMine(kept[0].ev) {
			delete(w.buffer, key) // another key's job made the request, or its job has ended
		}
	}
	w.mu.Unlock()
	for _, key := range keys {
		w.mu.Lock()
		id, ok := w.index[key]
		w.mu.Unlock()
		if !ok {
			continue
		}
		if err := w.applyKept(ctx, key, id, time.Now()); err != nil && ctx.Err() == nil {
			w.e.log.Warn("responses: apply kept responses; trying again later", "job_id", id, "correlation_id", w.e.correlationOf(ctx, id), "err", err)
		}
	}
}

// notMine tells a response this engine need not keep for a receipt it has not recorded: the read
// models show that another key's job made its request (a fleet's keys all read the one stream of
// responses), or that the request's job has ended. Kept, it would hold the block cursor back
// until ResponseBufferTTL, and a new holder of the key would read all those blocks again.
func (w *responsesWorker) notMine(ev gateway.Event) bool {
	job, awaiting, ended := w.e.set.GatewayRequest(ev.Type.Kind(), ev.RequestID.String())
	return ended || awaiting && !w.e.shard.owns(job)
}

// sameLog tells whether two events are the same log of the same block.
func sameLog(a, b gateway.Event) bool {
	return a.BlockHash == b.BlockHash && a.TxHash == b.TxHash && a.LogIndex == b.LogIndex
}

// dropRetired drops the index entries of jobs the read models retired while they were open here:
// read models that catch up while another instance's archiver removes retired jobs may hold a job
// at its first events only, and forget it at its JobsRetired (projections.Set.forgetOpen). No
// terminal transition of it comes (its stream is gone), so jobEnded never sees it. It looks only
// when the read models have retired jobs since its last look.
func (w *responsesWorker) dropRetired() {
	n := w.e.set.RetiredJobs()
	w.mu.Lock()
	if n == w.retiredSeen {
		w.mu.Unlock()
		return
	}
	w.retiredSeen = n
	ids := slices.Collect(maps.Keys(w.byJob))
	w.mu.Unlock()
	for _, id := range ids {
		if w.e.set.Retired(id) {
			w.jobEnded(id)
		}
	}
}

// jobEnded drops the index entry of a job that reached a terminal status; its request id's
// late responses are dropped from now on.
func (w *responsesWorker) jobEnded(id domain.JobID) {
	w.mu.Lock()
	if key, ok := w.byJob[id]; ok {
		delete(w.index, key)
		delete(w.byJob, id)
		delete(w.states, id)
		delete(w.buffer, key)
		w.ended[key] = time.Now()
	}
	w.mu.Unlock()
}

func (w *responsesWorker) buffered() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, b := range w.buffer {
		n += len(b)
	}
	return n
}

// handle is the router's handler of TopicGatewayResponses. A message carries the response
// events of one block range, in chain order. Responses of different gateway requests are applied
// side by side (those of one request in order), and the message is acknowledged only once all
// are recorded or kept, so the listener saves its cursor after them.
func (w *responsesWorker) handle(msg *message.Message) error {
	var evs []gateway.Event
	if err := json.Unmarshal(msg.Payload, &evs); err != nil {
		return Permanent(fmt.Errorf("gateway response message %s: %w", msg.UUID, err))
	}
	since := time.Now()
	if n, err := strconv.ParseInt(msg.Metadata.Get(metaDeliveredAt), 10, 64); err == nil {
		since = time.Unix(0, n)
	}
	type group struct {
		id  domain.JobID
		evs []gateway.Event
	}
	var order []responseKey
	groups := map[responseKey]*group{}
	w.mu.Lock()
	for _, ev := range evs {
		if ev.RequestID == nil || ev.Type.Kind().IsZero() {
			w.mu.Unlock()
			return Permanent(fmt.Errorf("gateway response message %s: an event without request id or of unknown type %q", msg.UUID, ev.Type))
		}
		if ev.Type == gateway.UserDecryptionResponseThresholdReached {
			continue // the shares themselves complete the job
		}
		key := keyOf(ev.Type.Kind(), ev.RequestID.String())
		if _, gone := w.ended[key]; gone {
			continue // its job has ended: a share past the threshold, or too late
		}
		id, ok := w.index[key]
		if !ok {
			if w.notMine(ev) {
				continue
			}
			w.buffer[key] = append(w.buffer[key], bufferedResponse{ev: ev, msgID: msg.UUID, arrived: time.Now()})
			continue
		}
		g := groups[key]
		if g == nil {
			g = &group{id: id}
			groups[key] = g
			order = append(order, key)
		}
		g.evs = append(g.evs, ev)
	}
	w.mu.Unlock()

	ctx := msg.Context()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for _, key := range order {
		g := groups[key]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			for j, ev := range g.evs {
				if err := w.apply(ctx, g.id, ev, msg.UUID, since); err != nil {
					// Kept, so that the cursor is held before them and retryKept tries
					// again: acknowledging (or poisoning) the message must not lose them.
					if ctx.Err() == nil {
						w.e.log.Warn("responses: record a response; keeping it to try again", "job_id", g.id, "correlation_id", w.e.correlationOf(ctx, g.id), "err", err)
					}
					w.mu.Lock()
					for _, rest := range g.evs[j:] {
						w.buffer[key] = append(w.buffer[key], bufferedResponse{ev: rest, msgID: msg.UUID, arrived: time.Now()})
					}
					w.mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return nil
}

// metaDeliveredAt is when the listener had the response's batch (unix nanoseconds): the
// response step's engine time counts from there.
const metaDeliveredAt = "delivered_at"

// apply records response ev on job id; since is when the response became actionable.
func (w *responsesWorker) apply(ctx context.Context, id domain.JobID, ev gateway.Event, cause string, since time.Time) error {
	e := w.e
	at := domain.At{At: e.now()}
	var cmd domain.Command
	switch ev.Type {
	case gateway.PublicDecryptionResponse:
		r := ev.PublicDecryption
		if r == nil {
			return Permanent(errors.New("public decryption response without its result"))
		}
		cmd = domain.Complete{At: at, Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
			DecryptedValue: hex.EncodeToString(r.DecryptedResult), Signatures: hexAll("", r.Signatures), ExtraData: "0x" + hex.EncodeToString(r.ExtraData),
		}}}
	case gateway.UserDecryptionResponse:
		r := ev.UserDecryptionShare
		if r == nil {
			return Permanent(errors.New("user decryption response without its share"))
		}
		cmd = domain.RecordShare{At: at, Threshold: e.cfg.UserDecryptThreshold, Share: domain.Share{
			Signer: r.Signer.Hex(), Payload: hex.EncodeToString(r.Share), Signature: hex.EncodeToString(r.Signature),
			ExtraData: "0x" + hex.EncodeToString(r.ExtraData),
		}}
	case gateway.VerifyProofResponse:
		r := ev.VerifyProof
		if r == nil {
			return Permanent(errors.New("verify proof response without its result"))
		}
		handles := make([]string, len(r.Handles))
		for i, h := range r.Handles {
			handles[i] = "0x" + hex.EncodeToString(h[:])
		}
		cmd = domain.Complete{At: at, Result: domain.Result{InputProof: &domain.InputProofResult{
			Accepted: true, Handles: handles, Signatures: hexAll("0x", r.Signatures), ExtraData: "0x" + hex.EncodeToString(r.ExtraData),
		}}}
	case gateway.RejectProofResponse:
		cmd = domain.RejectProof{At: at}
	default:
		return nil
	}
	w.mu.Lock()
	cached := w.states[id]
	w.mu.Unlock()
	out, ok, err := e.executeOn(ctx, id, cached, cmd, cause)
	if err != nil {
		return err
	}
	if !out.State.Status.IsZero() && !out.State.Status.Terminal() {
		w.mu.Lock()
		if _, indexed := w.byJob[id]; indexed {
			w.states[id] = out.State
		}
		w.mu.Unlock()
	}
	if ok {
		e.metrics.response(string(ev.Type))
		e.metrics.overhead(stepResponse, time.Since(since), 0)
	}
	if ok && out.State.Status.Terminal() {
		w.jobEnded(id)
	}
	return nil
}

// hexAll encodes each of bs in hex after prefix: the public SDK wants input-proof signatures
// 0x-prefixed (Bytes65Hex) and decryption signatures without it.
func hexAll(prefix string, bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = prefix + hex.EncodeToString(b)
	}
	return out
}

// loadCursor reads the saved block cursor; the first time, it saves the chain's head, so that
// nothing sent from now on is missed even if the process dies before its first save.
func (w *responsesWorker) loadCursor(ctx context.Context) (gateway.Cursor, error) {
	last, v, err := eventstore.Last(ctx, w.e.store, NewCheckpointCodec(), CheckpointStream(w.e.shard.name(ResponsesCursorConsumer)))
	if err != nil {
		return gateway.Cursor{}, fmt.Errorf("load the gateway cursor: %w", err)
	}
	w.cursor = eventstore.Folded[BlockCursorSaved]{Version: v}
	if last != nil {
		c := foldCursor(BlockCursorSaved{}, last)
		w.cursor.State = c
		saved := gateway.Cursor{Block: c.Block, Hash: c.Hash}
		on, err := w.e.gw.CursorOnChain(ctx, saved)
		if err != nil {
			return gateway.Cursor{}, fmt.Errorf("check the gateway cursor: %w", err)
		}
		if on {
			w.e.metrics.cursor(c.Block)
			return saved, nil
		}
		w.e.log.Warn("the gateway chain is behind the saved block cursor (a new development chain, or a node still syncing); following it from its head",
			"saved_block", c.Block)
	}
	var c gateway.Cursor
	retry := retryEvery(time.Second)
	for failures := 1; ; failures++ {
		var err error
		if c, err = w.e.gw.HeadCursor(ctx); err == nil {
			break
		}
		w.e.log.Warn("responses: read the gateway's head; trying again", "err", err)
		if !sleepCtx(ctx, retry.Delay(failures, nil)) {
			return c, ctx.Err()
		}
	}
	return c, w.saveCursor(ctx, c)
}

func (w *responsesWorker) saveCursor(ctx context.Context, c gateway.Cursor) error {
	// No retry: the cursor stream moving under this engine means another drives it.
	_, err := eventstore.Update(ctx, w.e.store, NewCheckpointCodec(), CheckpointStream(w.e.shard.name(ResponsesCursorConsumer)), &w.cursor, foldCursor,
		func(BlockCursorSaved) ([]eventstore.Typed, error) {
			return []eventstore.Typed{BlockCursorSaved{Block: c.Block, Hash: c.Hash, At: w.e.now().UTC()}}, nil
		}, eventstore.Metadata{}, nil, 0)
	if err != nil {
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) {
			return fmt.Errorf("save the gateway cursor: %w: %w", ErrCheckpointConflict, err)
		}
		return fmt.Errorf("save the gateway cursor: %w", err)
	}
	w.e.metrics.cursor(c.Block)
	return nil
}

// foldCursor is the cursor stream's state: the last cursor saved.
func foldCursor(c BlockCursorSaved, e eventstore.Typed) BlockCursorSaved {
	if s, ok := e.(BlockCursorSaved); ok {
		return s
	}
	return c
}

// listen follows the gateway's response events from cursor until ctx ends.
func (w *responsesWorker) listen(ctx context.Context, from gateway.Cursor) error {
	e := w.e
	saved := from
	lastSave := time.Now()
	for b, err := range e.gw.Listen(ctx, from) {
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			e.logChain("responses: follow the gateway's logs", "err", err)
			continue
		}
		if len(b.Events) > 0 {
			msg, err := responsesMessage(b)
			if err != nil {
				return err
			}
			msg.Metadata.Set(metaDeliveredAt, strconv.FormatInt(time.Now().UnixNano(), 10))
			// In process: Publish returns once the handler recorded or kept every response, so
			// the cursor saved below never passes one.
			if err := e.local.Publisher.Publish(TopicGatewayResponses, msg); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("publish the responses of blocks %d-%d: %w", b.From, b.To, err)
			}
		}
		w.retryKept(ctx)
		w.dropRetired()
		next := w.safeCursor(b.Cursor)
		if next == saved || (len(b.Events) == 0 && time.Since(lastSave) < e.cfg.ResponsesCursorEvery) {
			continue
		}
		if err := w.saveCursor(ctx, next); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !errors.Is(err, eventstore.ErrStorageFull) {
				return err
			}
			// A full store: the cursor stays where it was saved (a restart reads these blocks
			// again, and their responses are recorded once), and the save is tried again later.
			e.log.Warn("responses: the store is full; the block cursor is saved later", "block", next.Block)
			lastSave = time.Now()
			continue
		}
		saved, lastSave = next, time.Now()
	}
	return nil
}

// safeCursor is c, or the block of the oldest response still kept when that is lower: a
// restart must read it again. Kept responses older than ResponseBufferTTL are dropped first:
// no receipt will name them any more (the job's tx_in_flight deadline is long past, or the
// request is not this relayer's).
func (w *responsesWorker) safeCursor(c gateway.Cursor) gateway.Cursor {
	w.mu.Lock()
	defer w.mu.Unlock()
	low := c.Block
	for key, at := range w.ended {
		if time.Since(at) > w.e.cfg.ResponseBufferTTL {
			delete(w.ended, key)
		}
	}
	for key, bs := range w.buffer {
		kept := bs[:0]
		_, claimed := w.index[key]
		for _, b := range bs {
			if !claimed && time.Since(b.arrived) > w.e.cfg.ResponseBufferTTL {
				w.e.log.Info("responses: dropping a response no job claimed", "event", b.ev.String())
				continue
			}
			kept = append(kept, b)
			low = min(low, b.ev.BlockNumber)
		}
		if len(kept) == 0 {
			delete(w.buffer, key)
		} else {
			w.buffer[key] = kept
		}
	}
	if low < c.Block {
		return gateway.Cursor{Block: low} // no hash: resume there without a reorg check
	}
	return c
}

var responseNamespace = uuid.MustParse("0b7a2a4c-49a4-4a58-9d0e-96d7f3a1c5e0")

// responsesMessage is the message carrying batch b's events; its UUID names the blocks and
// their hashes' last event, so a re-delivery of the same range is recognisably the same message.
func responsesMessage(b gateway.Batch) (*message.Message, error) {
	payload, err := json.Marshal(b.Events)
	if err != nil {
		return nil, err
	}
	last := b.Events[len(b.Events)-1]
	id := uuid.NewSHA1(responseNamespace, []byte(fmt.Sprintf("%d-%d/%s/%d", b.From, b.To, last.BlockHash.Hex(), last.LogIndex))).String()
	msg := message.NewMessage(id, payload)
	msg.Metadata.Set(MetaType, "GatewayResponses")
	msg.Metadata.Set("blocks", fmt.Sprintf("%d-%d", b.From, b.To))
	msg.Metadata.Set(MetaCorrelationID, "gateway-blocks-"+fmt.Sprintf("%d-%d", b.From, b.To))
	return msg, nil
}
