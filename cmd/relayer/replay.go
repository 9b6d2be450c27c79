package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
)

const replayUsage = `Usage: relayer replay --job ID [--json] [--archive DIR|URL] [--data-dir DIR | --store URL]
       relayer replay --all [--json] [--archive DIR|URL] [--data-dir DIR | --store URL]

Prints one job's events as a timeline, or the whole log in global order (for audits), from the
event store; it only reads. With --archive, the events that retention moved to the archive come
first, from their segments (each checked against its manifest entry), then the live store's,
with their original positions: the whole log, read and decoded as a live replay reads it.
`

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay", replayUsage)
	dataDir, storeURL := storeFlags(fs)
	job := fs.String("job", "", "the job `ID` whose events to print")
	all := fs.Bool("all", false, "print every event of the log, in global order")
	asJSON := fs.Bool("json", false, "print one JSON object per event (JSON lines)")
	archiveURL := fs.String("archive", "", "also read the archive at this directory or s3://bucket/prefix `URL` (retention.archive), before the live store")
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	if (*job == "") == !*all {
		return usageErrorf("replay: give exactly one of --job ID or --all")
	}
	var id domain.JobID
	if *job != "" {
		var err error
		if id, err = domain.ParseJobID(*job); err != nil {
			return usageErrorf("replay: --job: %v", err)
		}
	}
	loc, err := locate(fs, *storeURL, *dataDir)
	if err != nil {
		return usageErrorf("replay: --store: %v", err)
	}
	store, err := openExisting(ctx, loc)
	if err != nil {
		return err
	}
	defer store.Close()
	path := loc.String()
	var arch archive.Store
	if *archiveURL != "" {
		if arch, err = archive.OpenExistingURL(ctx, *archiveURL); err != nil {
			return usageErrorf("replay: --archive: %v", err)
		}
		path += " and the archive " + arch.String()
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	p := &timelinePrinter{w: out, json: *asJSON, codec: projections.NewCodec(), checkpoints: workers.NewCheckpointCodec()}
	if *all {
		var log eventstore.Store = store
		if arch != nil {
			log = archive.Joined{Store: store, Archive: arch}
		}
		var last eventstore.Position
		for rec, err := range log.ReadAll(ctx, 0) {
			if err != nil {
				return fmt.Errorf("replay %s: %w", path, err)
			}
			if rec.Position <= last {
				return fmt.Errorf("replay %s: position %d follows position %d: the log is out of order", path, rec.Position, last)
			}
			last = rec.Position
			if err := p.print(rec); err != nil {
				return err
			}
		}
		return nil
	}
	n := 0
	if arch != nil {
		if err := archive.CheckRecorded(ctx, arch, store); err != nil {
			return fmt.Errorf("replay %s: %w", path, err)
		}
		for rec, err := range archive.ExportJob(ctx, arch, id) {
			if err != nil {
				return fmt.Errorf("replay %s: %w", path, err)
			}
			if err := p.print(rec); err != nil {
				return err
			}
			n++
		}
	}
	m, err := printJob(ctx, store, id, p)
	n += m
	if err != nil {
		return err
	}
	if n == 0 {
		if arch == nil {
			return fmt.Errorf("job %s not found in %s (a job past its retention window is in the archive: add --archive)", id, path)
		}
		return fmt.Errorf("job %s not found in %s", id, path)
	}
	return nil
}

// printJob prints one job's stream and returns how many events it has.
func printJob(ctx context.Context, store eventstore.Store, id domain.JobID, p *timelinePrinter) (int, error) {
	before := p.n
	for rec, err := range store.ReadStream(ctx, id.Stream(), 0) {
		if err != nil {
			return p.n - before, fmt.Errorf("replay %s: %w", id, err)
		}
		if err := p.print(rec); err != nil {
			return p.n - before, err
		}
	}
	return p.n - before, nil
}

// timelinePrinter prints records either as JSON lines or as a timeline: one line per event with
// its version, position, time (and the time since the stream's previous event), type, the status
// it moves the job to, and the event's own fields.
type timelinePrinter struct {
	w     io.Writer
	json  bool
	codec *eventstore.Codec
	// checkpoints decodes the workers' checkpoint streams.
	checkpoints *eventstore.Codec
	n           int
	// last event time per stream, for the "+1.2s" column.
	last map[string]time.Time
}

// jsonRecord is the stable machine form of a record.
type jsonRecord struct {
	Stream        string          `json:"stream"`
	Version       int64           `json:"version"`
	Position      uint64          `json:"position"`
	Type          string          `json:"type"`
	SchemaVersion int             `json:"schemaVersion"`
	RecordedAt    time.Time       `json:"recordedAt"`
	CorrelationID string          `json:"correlationId,omitempty"`
	CausationID   string          `json:"causationId,omitempty"`
	Data          json.RawMessage `json:"data"`
}

func (p *timelinePrinter) print(rec eventstore.Record) error {
	p.n++
	if p.json {
		// The data goes out as it is stored: one that is no longer JSON stops the replay as an
		// event the codec cannot decode does.
		if err := eventstore.CheckData(rec); err != nil {
			return err
		}
		b, err := json.Marshal(jsonRecord{
			Stream: rec.Stream, Version: int64(rec.Version), Position: uint64(rec.Position),
			Type: rec.Type, SchemaVersion: rec.SchemaVersion, RecordedAt: rec.Metadata.RecordedAt.UTC(),
			CorrelationID: rec.Metadata.CorrelationID, CausationID: rec.Metadata.CausationID, Data: rec.Data,
		})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.w, "%s\n", b)
		return err
	}
	// Decoding proves the event readable; an unreadable one stops the replay with its name. The
	// workers' checkpoint streams (dispatcher positions, the gateway block cursor) have their own
	// codec.
	codec := p.codec
	if workers.IsCheckpointStream(rec.Stream) {
		codec = p.checkpoints
	}
	v, err := codec.Decode(rec)
	if _, job := domain.JobIDFromStream(rec.Stream); err != nil && !job && errors.Is(err, eventstore.ErrUnknownEventType) {
		// A housekeeping stream of a part with its own codec (a lease's terms, the fleet's
		// keys): printed as stored, as the JSON output does, rather than stopping the replay.
		_, err = fmt.Fprintf(p.w, "%s  v%-3d pos %-8d %-22s %s\n", rec.Stream, rec.Version, rec.Position, rec.Type, rec.Data)
		return err
	}
	if err != nil {
		return err
	}
	e, ok := v.(domain.Event)
	if !ok {
		_, err = fmt.Fprintf(p.w, "%s  v%-3d pos %-8d %-22s %s\n", rec.Stream, rec.Version, rec.Position, rec.Type, rec.Data)
		return err
	}
	if p.last == nil {
		p.last = map[string]time.Time{}
	}
	at := e.Header().At.UTC()
	since := ""
	if prev, ok := p.last[rec.Stream]; ok {
		since = "+" + at.Sub(prev).Round(time.Millisecond).String()
	}
	p.last[rec.Stream] = at
	if rec.Version == 0 {
		if a, ok := e.(domain.RequestAccepted); ok {
			fmt.Fprintf(p.w, "job %s  %s\n", a.JobID, a.Kind)
		} else {
			fmt.Fprintf(p.w, "stream %s\n", rec.Stream)
		}
	}
	status := ""
	if to, ok := domain.StatusAfter(e); ok {
		status = "-> " + to.String()
	}
	_, err = fmt.Fprintf(p.w, "  v%-3d pos %-8d %s %9s  %-22s %-20s %s\n",
		rec.Version, rec.Position, at.Format("2006-01-02T15:04:05.000Z"), since, rec.Type, status, details(e))
	return err
}

// details is an event's own fields, short enough for one line.
func details(e domain.Event) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	switch e := e.(type) {
	case domain.RequestAccepted:
		add("hash", short(e.ContentHash))
		if e.RetryOf != nil {
			add("retryOf", e.RetryOf.JobID.String())
		}
		switch {
		case e.Request.PublicDecrypt != nil:
			add("handles", fmt.Sprint(len(e.Request.PublicDecrypt.CiphertextHandles)))
		case e.Request.UserDecrypt != nil:
			add("pairs", fmt.Sprint(len(e.Request.UserDecrypt.HandleContractPairs)))
			add("user", e.Request.UserDecrypt.UserAddress)
		case e.Request.DelegatedUserDecrypt != nil:
			add("pairs", fmt.Sprint(len(e.Request.DelegatedUserDecrypt.HandleContractPairs)))
			add("delegator", e.Request.DelegatedUserDecrypt.DelegatorAddress)
			add("delegate", e.Request.DelegatedUserDecrypt.DelegateAddress)
		case e.Request.UnifiedUserDecrypt != nil:
			add("handles", fmt.Sprint(len(e.Request.UnifiedUserDecrypt.Handles)))
			add("user", e.Request.UnifiedUserDecrypt.UserAddress)
		case e.Request.InputProof != nil:
			add("contract", e.Request.InputProof.ContractAddress)
			add("user", e.Request.InputProof.UserAddress)
		}
	case domain.ReadinessFailed:
		add("label", e.Label)
		add("message", e.Message)
	case domain.TransactionSigned:
		add("tx", short(e.TxHash))
		add("nonce", fmt.Sprint(e.Nonce))
		add("from", e.From)
	case domain.RetryScheduled:
		add("step", e.Step)
		add("attempt", fmt.Sprint(e.Attempt))
		add("next", e.NextAt.UTC().Format(time.RFC3339Nano))
		add("reason", e.Reason)
	case domain.TransactionReplaced:
		add("tx", short(e.TxHash))
		add("replaces", short(e.Replaces))
		add("maxFeePerGas", e.GasFeeCap)
		if e.Cancel {
			add("noOp", "cancel")
		}
	case domain.TransactionReset:
		add("tx", short(e.TxHash))
		add("reason", e.Reason)
	case domain.ReceiptRecorded:
		add("tx", short(e.TxHash))
		add("block", fmt.Sprint(e.BlockNumber))
		add("gatewayRequestId", e.GatewayRequestID)
	case domain.TransactionFailed:
		add("label", e.Label)
		add("message", e.Message)
	case domain.ShareReceived:
		add("signer", e.Share.Signer)
	case domain.RequestCompleted:
		switch {
		case e.Result.UserDecrypt != nil:
			add("shares", fmt.Sprint(len(e.Result.UserDecrypt.Result)))
		case e.Result.PublicDecrypt != nil:
			add("value", short(e.Result.PublicDecrypt.DecryptedValue))
		case e.Result.InputProof != nil:
			add("handles", fmt.Sprint(len(e.Result.InputProof.Handles)))
		}
	case domain.ResponseTimedOut:
		add("shares", fmt.Sprint(e.Shares))
	case domain.RequestFailed:
		add("label", e.Label)
		add("message", e.Message)
	case domain.JobCancelled:
		add("who", e.Who)
		add("reason", e.Reason)
		add("noOp", short(e.NoOpTxHash))
	case domain.CancelRequested:
		add("who", e.Who)
		add("reason", e.Reason)
		add("tx", short(e.TxHash))
	case domain.RetryRequested:
		add("who", e.Who)
		add("reason", e.Reason)
	case domain.JobRetried:
		add("newJob", e.NewJobID.String())
		add("who", e.Who)
		add("reason", e.Reason)
	}
	return strings.Join(parts, " ")
}

func short(hex string) string {
	if len(hex) > 18 {
		return hex[:10] + "…" + hex[len(hex)-6:]
	}
	return hex
}
