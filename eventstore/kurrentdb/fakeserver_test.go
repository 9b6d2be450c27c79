package kurrentdb

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/protos/shared"
	"github.com/EventStore/EventStore-Client-Go/v4/protos/streams"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// fakeServer plays, in memory and over the same gRPC API (the protos the client ships), the part
// of a KurrentDB server this package relies on, so that tests run the client's own code against
// it. It is no KurrentDB: it encodes this package's reading of the server (doc.go), taken from
// KurrentDB's sources, and a test that passes against it shows that the store and the client
// agree with that reading, not that KurrentDB does. Where the server's behaviour matters, the
// fake follows it:
//
//   - $all is a log of records placed by byte offset, of varying sizes, the first at 0; an
//     event's commit and prepare positions are its record's offset.
//   - Every fifth append is followed by a system event ($statsCollected in a $stats- stream),
//     as KurrentDB writes its statistics into $all.
//   - A forward read of $all from a position is inclusive; from past the last record it reads
//     nothing; from inside a record it fails (the server's InvalidPosition). A backward read
//     from a position reads the records that end at or before it.
//   - A subscription to $all from a position starts after it; from inside a record below the
//     last one it fails as the catch-up read does. It applies the filter it is given.
//   - An append answers with the revision and the commit position of its last event, or with
//     the stream's current revision when the expected one does not hold.
//   - Stream metadata is the last event of the stream's metastream ("$$" and its name), written
//     by an append like any other. A stream read passes over the events below the truncate-
//     before ($tb) it holds, and answers "not found" when none is left; the records stay in $all
//     (which bypasses the metadata) until a scavenge.
//   - A soft delete (Delete) writes a $tb past the stream's last event into its metadata: the
//     stream reads as not found, and a later append continues its revisions. A tombstone writes
//     a $streamDeleted record into the stream and $all; the stream then reads, and refuses
//     appends, as deleted (the trailer "exception: stream-deleted" the client reads). Both check
//     the expected revision, answering a wrong one with FailedPrecondition and the trailer
//     "exception: wrong-expected-version".
//   - scavenge drops from $all the records a scavenge may drop: those below their stream's $tb
//     but its last, those of a tombstoned stream but the tombstone, all but the last of a
//     metastream. The others keep their positions; a read or subscription from the position of
//     a dropped record starts at the next one. (A real scavenge leaves the chunk being written
//     alone; the fake's drops everything eligible.)
type fakeServer struct {
	streams.UnimplementedStreamsServer
	t    testing.TB
	addr string
	url  string

	srvMu sync.Mutex
	srv   *grpc.Server

	mu       sync.Mutex
	log      []fakeRecord
	next     int64 // where the next record goes
	byStream map[string][]int
	nextRev  map[string]uint64
	changed  chan struct{} // closed and replaced on every write
	appends  int

	tombstoned map[string]bool
	scavenged  map[int64]bool // positions of records a scavenge dropped

	// Knobs and observations, under mu.
	noStreamPositions bool // stream reads report no $all position, as servers before 22.6 did
	dropEvery         int  // a subscription fails (Unavailable) after sending this many events
	appendOptions     []*streams.AppendReq_Options
	proposed          []*streams.AppendReq_ProposedMessage
	strayInReads      bool // stream reads send a checkpoint first, which no read expects
	refused           int  // reads refused at a position inside a record
	subscriptions     int
	allReadEvents     int                 // events sent by reads of $all
	streamReads       map[string]int      // reads of each stream
	failStreamReads   map[string]int      // reads of these streams still to fail (Unavailable)
	beforeDelete      func(stream string) // runs before a delete or tombstone is checked, without mu
	tombstones        []*streams.TombstoneReq_Options
}

type fakeRecord struct {
	pos, size    int64
	stream       string
	rev          uint64
	meta         map[string]string // type, content-type, created
	custom, data []byte
	id           *shared.UUID
}

// newFakeServer starts a fake server on a free local port, stopped when the test ends.
func newFakeServer(t testing.TB) *fakeServer {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{t: t, addr: lis.Addr().String(), byStream: map[string][]int{}, nextRev: map[string]uint64{},
		changed: make(chan struct{}), tombstoned: map[string]bool{}, scavenged: map[int64]bool{}}
	f.url = "esdb://" + f.addr + "?tls=false"
	f.serve(lis)
	t.Cleanup(f.stop)
	return f
}

// takeAllReadEvents returns how many events reads of $all have sent since it was last called.
func (f *fakeServer) takeAllReadEvents() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.allReadEvents
	f.allReadEvents = 0
	return n
}

func (f *fakeServer) serve(lis net.Listener) {
	// The client pings every 10s, idle or not, as KurrentDB allows; gRPC's default policy would
	// answer with GOAWAY (too_many_pings).
	srv := grpc.NewServer(grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true}))
	streams.RegisterStreamsServer(srv, f)
	f.srvMu.Lock()
	f.srv = srv
	f.srvMu.Unlock()
	go srv.Serve(lis)
}

// stop stops the server as a crash would: connections and calls end, the log stays.
func (f *fakeServer) stop() {
	f.srvMu.Lock()
	defer f.srvMu.Unlock()
	if f.srv != nil {
		f.srv.Stop()
		f.srv = nil
	}
}

// restart serves the log again on the same address.
func (f *fakeServer) restart() {
	f.t.Helper()
	var lis net.Listener
	var err error
	for range 50 { // the port may take a moment to be free again
		if lis, err = net.Listen("tcp", f.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		f.t.Fatalf("restart the fake server on %s: %v", f.addr, err)
	}
	f.serve(lis)
}

func (f *fakeServer) set(fn func(f *fakeServer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// writeLocked appends events to a stream's end and wakes subscriptions.
func (f *fakeServer) writeLocked(stream string, msgs []*streams.AppendReq_ProposedMessage) fakeRecord {
	var last fakeRecord
	for _, m := range msgs {
		r := fakeRecord{
			pos:    f.next,
			stream: stream,
			rev:    f.nextRev[stream],
			meta: map[string]string{
				"type":         m.Metadata["type"],
				"content-type": m.Metadata["content-type"],
				// .NET ticks (100ns) since the Unix epoch, as the server sends them
				"created": strconv.FormatInt(time.Now().UnixNano()/100, 10),
			},
			custom: m.CustomMetadata,
			data:   m.Data,
			id:     m.Id,
		}
		r.size = int64(80 + len(stream) + len(r.meta["type"]) + len(r.custom) + len(r.data))
		f.next += r.size
		f.nextRev[stream]++
		f.byStream[stream] = append(f.byStream[stream], len(f.log))
		f.log = append(f.log, r)
		last = r
	}
	close(f.changed)
	f.changed = make(chan struct{})
	return last
}

func (f *fakeServer) Append(srv streams.Streams_AppendServer) error {
	req, err := srv.Recv()
	if err != nil {
		return err
	}
	opts := req.GetOptions()
	if opts == nil {
		return status.Error(codes.InvalidArgument, "fake: an append starts with its options")
	}
	var msgs []*streams.AppendReq_ProposedMessage
	for {
		req, err := srv.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		msgs = append(msgs, req.GetProposedMessage())
	}
	name := string(opts.GetStreamIdentifier().GetStreamName())
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appendOptions = append(f.appendOptions, opts)
	f.proposed = append(f.proposed, msgs...)
	if f.tombstoned[name] {
		return deleted(srv.SetTrailer, name)
	}
	current := f.current(name)
	var ok bool
	wrong := &streams.AppendResp_WrongExpectedVersion{}
	switch e := opts.ExpectedStreamRevision.(type) {
	case *streams.AppendReq_Options_Any:
		ok = true
	case *streams.AppendReq_Options_NoStream:
		ok = current < 0
		wrong.ExpectedRevisionOption = &streams.AppendResp_WrongExpectedVersion_ExpectedNoStream{ExpectedNoStream: &shared.Empty{}}
	case *streams.AppendReq_Options_StreamExists:
		ok = current >= 0
		wrong.ExpectedRevisionOption = &streams.AppendResp_WrongExpectedVersion_ExpectedStreamExists{ExpectedStreamExists: &shared.Empty{}}
	case *streams.AppendReq_Options_Revision:
		ok = current == int64(e.Revision)
		wrong.ExpectedRevisionOption = &streams.AppendResp_WrongExpectedVersion_ExpectedRevision{ExpectedRevision: e.Revision}
	}
	if !ok {
		if current < 0 {
			wrong.CurrentRevisionOption = &streams.AppendResp_WrongExpectedVersion_CurrentNoStream{CurrentNoStream: &shared.Empty{}}
		} else {
			wrong.CurrentRevisionOption = &streams.AppendResp_WrongExpectedVersion_CurrentRevision{CurrentRevision: uint64(current)}
		}
		return srv.SendAndClose(&streams.AppendResp{Result: &streams.AppendResp_WrongExpectedVersion_{WrongExpectedVersion: wrong}})
	}
	last := f.writeLocked(name, msgs)
	f.appends++
	if f.appends%5 == 0 {
		f.writeLocked("$stats-"+f.addr, []*streams.AppendReq_ProposedMessage{{
			Metadata: map[string]string{"type": "$statsCollected", "content-type": "application/json"},
			Data:     []byte(`{"proc-cpu":1}`),
			Id:       &shared.UUID{Value: &shared.UUID_String_{String_: "00000000-0000-0000-0000-000000000000"}},
		}})
	}
	return srv.SendAndClose(&streams.AppendResp{Result: &streams.AppendResp_Success_{Success: &streams.AppendResp_Success{
		CurrentRevisionOption: &streams.AppendResp_Success_CurrentRevision{CurrentRevision: last.rev},
		PositionOption: &streams.AppendResp_Success_Position{Position: &streams.AppendResp_Position{
			CommitPosition: uint64(last.pos), PreparePosition: uint64(last.pos),
		}},
	}}})
}

func (f *fakeServer) Read(req *streams.ReadReq, srv streams.Streams_ReadServer) error {
	o := req.GetOptions()
	switch {
	case o.GetStream() != nil:
		return f.readStream(o, srv)
	case o.GetAll() != nil && o.GetSubscription() != nil:
		return f.subscribeAll(o, srv)
	case o.GetAll() != nil:
		return f.readAll(o, srv)
	}
	return status.Error(codes.Unimplemented, "fake: a read the fake does not know")
}

// snapshot returns the log as it is; records are never changed once written.
func (f *fakeServer) snapshot() ([]fakeRecord, chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log, f.changed
}

// event is a record as a read sends it; allPosition says whether the read is of $all.
func event(r fakeRecord, withPosition, allPosition bool) *streams.ReadResp {
	commit := uint64(r.pos)
	if !withPosition {
		commit = math.MaxUint64
	}
	ev := &streams.ReadResp_ReadEvent{Event: &streams.ReadResp_ReadEvent_RecordedEvent{
		Id:               r.id,
		StreamIdentifier: &shared.StreamIdentifier{StreamName: []byte(r.stream)},
		StreamRevision:   r.rev,
		CommitPosition:   commit,
		PreparePosition:  commit,
		Metadata:         maps.Clone(r.meta),
		CustomMetadata:   r.custom,
		Data:             r.data,
	}}
	if allPosition {
		ev.Position = &streams.ReadResp_ReadEvent_CommitPosition{CommitPosition: commit}
	} else {
		ev.Position = &streams.ReadResp_ReadEvent_NoPosition{NoPosition: &shared.Empty{}}
	}
	return &streams.ReadResp{Content: &streams.ReadResp_Event{Event: ev}}
}

func (f *fakeServer) readStream(o *streams.ReadReq_Options, srv streams.Streams_ReadServer) error {
	so := o.GetStream()
	name := string(so.GetStreamIdentifier().GetStreamName())
	f.mu.Lock()
	if f.streamReads == nil {
		f.streamReads = map[string]int{}
	}
	f.streamReads[name]++
	if f.failStreamReads[name] > 0 {
		f.failStreamReads[name]--
		f.mu.Unlock()
		return status.Error(codes.Unavailable, "fake: the stream read fails")
	}
	var recs []fakeRecord // what a read of the stream sees, in revision order
	tb := f.truncateBeforeLocked(name)
	for _, i := range f.byStream[name] {
		if r := f.log[i]; r.rev >= tb {
			recs = append(recs, r)
		}
	}
	tombstoned := f.tombstoned[name]
	noPos, stray := f.noStreamPositions, f.strayInReads
	f.mu.Unlock()
	if stray {
		if err := srv.Send(&streams.ReadResp{Content: &streams.ReadResp_Checkpoint_{Checkpoint: &streams.ReadResp_Checkpoint{}}}); err != nil {
			return err
		}
	}
	if tombstoned {
		return deleted(srv.SetTrailer, name)
	}
	if len(recs) == 0 {
		return srv.Send(&streams.ReadResp{Content: &streams.ReadResp_StreamNotFound_{StreamNotFound: &streams.ReadResp_StreamNotFound{StreamIdentifier: so.StreamIdentifier}}})
	}
	count := o.GetCount()
	send := func(i int) error { return srv.Send(event(recs[i], !noPos, false)) }
	// at is the index of the first record at or after revision rev.
	at := func(rev uint64) int {
		i, _ := slices.BinarySearchFunc(recs, rev, func(r fakeRecord, rev uint64) int { return cmp.Compare(r.rev, rev) })
		return i
	}
	n := uint64(0)
	if o.GetReadDirection() == streams.ReadReq_Options_Backwards {
		from := len(recs) - 1
		if r, ok := so.RevisionOption.(*streams.ReadReq_Options_StreamOptions_Revision); ok {
			if from = at(r.Revision); from == len(recs) || recs[from].rev > r.Revision {
				from--
			}
		}
		for i := from; i >= 0 && n < count; i, n = i-1, n+1 {
			if err := send(i); err != nil {
				return err
			}
		}
		return nil
	}
	from := 0
	switch r := so.RevisionOption.(type) {
	case *streams.ReadReq_Options_StreamOptions_Revision:
		from = at(r.Revision)
	case *streams.ReadReq_Options_StreamOptions_End:
		from = len(recs)
	}
	for i := from; i < len(recs) && n < count; i, n = i+1, n+1 {
		if err := send(i); err != nil {
			return err
		}
	}
	return nil
}

// current is a stream's current revision as an expected revision is checked against it: its
// last event's, -1 when it has none.
func (f *fakeServer) current(stream string) int64 {
	n, ok := f.nextRev[stream]
	if !ok {
		return -1
	}
	return int64(n) - 1
}

// truncateBeforeLocked is the $tb of a stream's metadata, 0 when it has none.
func (f *fakeServer) truncateBeforeLocked(stream string) uint64 {
	idx := f.byStream["$$"+stream]
	if len(idx) == 0 {
		return 0
	}
	var meta struct {
		TB *uint64 `json:"$tb"`
	}
	if json.Unmarshal(f.log[idx[len(idx)-1]].data, &meta) != nil || meta.TB == nil {
		return 0
	}
	return *meta.TB
}

// deleted ends a call on a tombstoned stream as the server does: setTrailer is the call's.
func deleted(setTrailer func(metadata.MD), stream string) error {
	setTrailer(metadata.Pairs("exception", "stream-deleted", "stream-name", stream))
	return status.Errorf(codes.FailedPrecondition, "fake: event stream '%s' is deleted", stream)
}

// unaryTrailer sets the trailer of a unary call.
func unaryTrailer(ctx context.Context) func(metadata.MD) {
	return func(md metadata.MD) { _ = grpc.SetTrailer(ctx, md) }
}

// expectedHolds checks a delete's or a tombstone's expected revision, under mu.
func (f *fakeServer) expectedHolds(ctx context.Context, stream string, expected any) error {
	current := f.current(stream)
	var ok bool
	switch e := expected.(type) {
	case *streams.DeleteReq_Options_Any, *streams.TombstoneReq_Options_Any:
		ok = true
	case *streams.DeleteReq_Options_NoStream, *streams.TombstoneReq_Options_NoStream:
		ok = current < 0
	case *streams.DeleteReq_Options_StreamExists, *streams.TombstoneReq_Options_StreamExists:
		ok = current >= 0
	case *streams.DeleteReq_Options_Revision:
		ok = current == int64(e.Revision)
	case *streams.TombstoneReq_Options_Revision:
		ok = current == int64(e.Revision)
	}
	if ok {
		return nil
	}
	_ = grpc.SetTrailer(ctx, metadata.Pairs("exception", "wrong-expected-version", "actual-version", strconv.FormatInt(current, 10)))
	return status.Errorf(codes.FailedPrecondition, "fake: wrong expected version for %s: it is at %d", stream, current)
}

// deleteStream runs a soft delete or a tombstone of a stream, after the beforeDelete hook: when
// the stream is not tombstoned and is at the expected revision, write writes its record, whose
// position deleteStream returns.
func (f *fakeServer) deleteStream(ctx context.Context, name string, expected any, write func() fakeRecord) (uint64, error) {
	f.mu.Lock()
	hook := f.beforeDelete
	f.mu.Unlock()
	if hook != nil {
		hook(name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tombstoned[name] {
		return 0, deleted(unaryTrailer(ctx), name)
	}
	if err := f.expectedHolds(ctx, name, expected); err != nil {
		return 0, err
	}
	return uint64(write().pos), nil
}

// Delete soft-deletes a stream: its metadata's $tb goes past its last event.
func (f *fakeServer) Delete(ctx context.Context, req *streams.DeleteReq) (*streams.DeleteResp, error) {
	name := string(req.GetOptions().GetStreamIdentifier().GetStreamName())
	pos, err := f.deleteStream(ctx, name, req.GetOptions().GetExpectedStreamRevision(), func() fakeRecord {
		return f.writeLocked("$$"+name, []*streams.AppendReq_ProposedMessage{{
			Metadata: map[string]string{"type": "$metadata", "content-type": "application/json"},
			Data:     []byte(fmt.Sprintf(`{"$tb":%d}`, f.current(name)+1)),
			Id:       &shared.UUID{Value: &shared.UUID_String_{String_: "00000000-0000-0000-0000-000000000001"}},
		}})
	})
	if err != nil {
		return nil, err
	}
	return &streams.DeleteResp{PositionOption: &streams.DeleteResp_Position_{Position: &streams.DeleteResp_Position{CommitPosition: pos, PreparePosition: pos}}}, nil
}

// Tombstone hard-deletes a stream: a $streamDeleted record goes into it, and it is deleted for
// good.
func (f *fakeServer) Tombstone(ctx context.Context, req *streams.TombstoneReq) (*streams.TombstoneResp, error) {
	name := string(req.GetOptions().GetStreamIdentifier().GetStreamName())
	f.set(func(f *fakeServer) { f.tombstones = append(f.tombstones, req.GetOptions()) })
	pos, err := f.deleteStream(ctx, name, req.GetOptions().GetExpectedStreamRevision(), func() fakeRecord {
		f.nextRev[name] = math.MaxInt64 // the tombstone's revision, as the server numbers it
		f.tombstoned[name] = true
		return f.writeLocked(name, []*streams.AppendReq_ProposedMessage{{
			Metadata: map[string]string{"type": "$streamDeleted", "content-type": "application/octet-stream"},
			Id:       &shared.UUID{Value: &shared.UUID_String_{String_: "00000000-0000-0000-0000-000000000002"}},
		}})
	})
	if err != nil {
		return nil, err
	}
	return &streams.TombstoneResp{PositionOption: &streams.TombstoneResp_Position_{Position: &streams.TombstoneResp_Position{CommitPosition: pos, PreparePosition: pos}}}, nil
}

// scavenge drops from $all what a scavenge may drop (see fakeServer) and returns how many
// records it dropped.
func (f *fakeServer) scavenge() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	lastOf := map[string]int{}
	for i, r := range f.log {
		lastOf[r.stream] = i
	}
	var kept []fakeRecord // a new array: snapshots taken before keep theirs
	for i, r := range f.log {
		keep := true
		switch {
		case f.tombstoned[r.stream]:
			keep = r.meta["type"] == "$streamDeleted"
		case strings.HasPrefix(r.stream, "$$"):
			keep = lastOf[r.stream] == i
		case !strings.HasPrefix(r.stream, "$"):
			keep = lastOf[r.stream] == i || r.rev >= f.truncateBeforeLocked(r.stream)
		}
		if keep {
			kept = append(kept, r)
		} else {
			f.scavenged[r.pos] = true
		}
	}
	dropped := len(f.log) - len(kept)
	f.log = kept
	f.byStream = map[string][]int{}
	for i, r := range kept {
		f.byStream[r.stream] = append(f.byStream[r.stream], i)
	}
	return dropped
}

// find returns the index of the record at pos, or where it would go and false.
func find(log []fakeRecord, pos int64) (int, bool) {
	return slices.BinarySearchFunc(log, pos, func(r fakeRecord, p int64) int {
		switch {
		case r.pos < p:
			return -1
		case r.pos > p:
			return 1
		}
		return 0
	})
}

func (f *fakeServer) refuse() error {
	f.mu.Lock()
	f.refused++
	f.mu.Unlock()
	return status.Error(codes.InvalidArgument, "fake: the position is inside a record (the server's InvalidPosition)")
}

func (f *fakeServer) readAll(o *streams.ReadReq_Options, srv streams.Streams_ReadServer) error {
	log, _ := f.snapshot()
	count := o.GetCount()
	forwards := o.GetReadDirection() == streams.ReadReq_Options_Forwards
	var start int // the first record to send
	switch p := o.GetAll().AllOption.(type) {
	case *streams.ReadReq_Options_AllOptions_Start:
		start = 0
		if !forwards {
			start = -1
		}
	case *streams.ReadReq_Options_AllOptions_End:
		start = len(log)
		if !forwards {
			start = len(log) - 1
		}
	case *streams.ReadReq_Options_AllOptions_Position:
		c := int64(p.Position.CommitPosition)
		i, at := find(log, c)
		dropped := f.wasScavenged(c)
		switch {
		case forwards && (len(log) == 0 || c > log[len(log)-1].pos):
			start = len(log) // past the last record: the end of $all
		case forwards && dropped:
			start = i // the next record
		case forwards && !at:
			return f.refuse()
		case forwards:
			start = i
		case c >= f.end(log):
			start = len(log) - 1
		case dropped:
			start = i - 1
		case !at:
			return f.refuse()
		default:
			start = i - 1 // the records that end at or before c
		}
	}
	n := uint64(0)
	for i := start; i >= 0 && i < len(log) && n < count; n++ {
		if err := srv.Send(event(log[i], true, true)); err != nil {
			return err
		}
		f.mu.Lock()
		f.allReadEvents++
		f.mu.Unlock()
		if forwards {
			i++
		} else {
			i--
		}
	}
	return nil
}

// wasScavenged reports whether a scavenge dropped the record at pos.
func (f *fakeServer) wasScavenged(pos int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.scavenged[pos]
}

// end is where the next record of log goes.
func (f *fakeServer) end(log []fakeRecord) int64 {
	if len(log) == 0 {
		return 0
	}
	last := log[len(log)-1]
	return last.pos + last.size
}

// matcher is a subscription's filter.
func matcher(fo *streams.ReadReq_Options_FilterOptions) func(fakeRecord) bool {
	if fo == nil {
		return func(fakeRecord) bool { return true }
	}
	var expr *streams.ReadReq_Options_FilterOptions_Expression
	field := func(r fakeRecord) string { return r.stream }
	switch x := fo.Filter.(type) {
	case *streams.ReadReq_Options_FilterOptions_StreamIdentifier:
		expr = x.StreamIdentifier
	case *streams.ReadReq_Options_FilterOptions_EventType:
		expr = x.EventType
		field = func(r fakeRecord) string { return r.meta["type"] }
	}
	if expr.Regex != "" {
		re := regexp.MustCompile(expr.Regex)
		return func(r fakeRecord) bool { return re.MatchString(field(r)) }
	}
	return func(r fakeRecord) bool {
		return slices.ContainsFunc(expr.Prefix, func(p string) bool { return strings.HasPrefix(field(r), p) })
	}
}

func (f *fakeServer) subscribeAll(o *streams.ReadReq_Options, srv streams.Streams_ReadServer) error {
	match := matcher(o.GetFilter())
	log, _ := f.snapshot()
	f.mu.Lock()
	f.subscriptions++
	dropEvery := f.dropEvery
	f.mu.Unlock()
	checkpoint := int64(-1) // events after it are sent
	switch p := o.GetAll().AllOption.(type) {
	case *streams.ReadReq_Options_AllOptions_End:
		if len(log) > 0 {
			checkpoint = log[len(log)-1].pos
		}
	case *streams.ReadReq_Options_AllOptions_Position:
		checkpoint = int64(p.Position.CommitPosition)
		if _, at := find(log, checkpoint); !at && !f.wasScavenged(checkpoint) && len(log) > 0 && checkpoint < log[len(log)-1].pos {
			return f.refuse()
		}
	}
	if err := srv.Send(&streams.ReadResp{Content: &streams.ReadResp_Confirmation{Confirmation: &streams.ReadResp_SubscriptionConfirmation{SubscriptionId: "fake"}}}); err != nil {
		return err
	}
	sent, caughtUp, i := 0, false, 0
	for {
		log, changed := f.snapshot()
		for ; i < len(log); i++ {
			r := log[i]
			if r.pos <= checkpoint {
				continue
			}
			checkpoint = r.pos
			if !match(r) {
				continue
			}
			if err := srv.Send(event(r, true, true)); err != nil {
				return err
			}
			sent++
			if dropEvery > 0 && sent == dropEvery {
				return status.Error(codes.Unavailable, "fake: the subscription is dropped")
			}
		}
		if !caughtUp {
			caughtUp = true
			for _, resp := range []*streams.ReadResp{
				{Content: &streams.ReadResp_Checkpoint_{Checkpoint: &streams.ReadResp_Checkpoint{CommitPosition: uint64(max(checkpoint, 0)), PreparePosition: uint64(max(checkpoint, 0))}}},
				{Content: &streams.ReadResp_CaughtUp_{CaughtUp: &streams.ReadResp_CaughtUp{}}},
			} {
				if err := srv.Send(resp); err != nil {
					return err
				}
			}
		}
		select {
		case <-changed:
		case <-srv.Context().Done():
			return srv.Context().Err()
		}
	}
}
