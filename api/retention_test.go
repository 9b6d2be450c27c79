package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

func TestARetiredJobAnswers404SayingItWasArchivedAndAnIdenticalRequestBecomesANewJob(t *testing.T) {
	env := startJT(t)
	body := jtBody(domain.InputProof, 21)
	first, err := domain.ParseJobID(env.do("POST", "/v2/input-proof", body).jobID(t))
	if err != nil {
		t.Fatal(err)
	}
	env.exec1(first, domain.Fail{At: env.clock.At(time.Second), Label: "internal_error", Message: "test"})

	// What the archiver records and does once the job is past its window and archived.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	head, err := env.store.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := projections.NewCodec().Encode(domain.JobsRetired{UpTo: uint64(head), Jobs: []domain.JobID{first}, At: env.clock.Now()}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	pos, err := env.store.Append(ctx, domain.RetentionStream, eventstore.NoStream, ev)
	if err != nil {
		t.Fatal(err)
	}
	out, err := env.store.(eventstore.Remover).RemoveStreams(ctx, []string{first.Stream()}, head)
	if err != nil || len(out.Streams) != 1 {
		t.Fatalf("remove: %+v, %v", out, err)
	}
	if err := env.set.WaitFor(ctx, pos); err != nil {
		t.Fatal(err)
	}

	res := env.do("GET", "/v2/input-proof/"+first.String(), nil)
	res.want(t, http.StatusNotFound, labelNotFound)
	if !strings.Contains(res.Env.Error.Message, "archived") {
		t.Fatalf("the 404 does not say the job was archived: %s", res.Body)
	}
	env.do("GET", "/v1/jobs/"+first.String()+"/events", nil, jtAuth...).want(t, http.StatusNotFound, labelNotFound)

	second := env.do("POST", "/v2/input-proof", body).jobID(t)
	if second == first.String() {
		t.Fatalf("an identical request after the retirement answered with the retired job %s", first)
	}
	env.do("GET", "/v2/input-proof/"+second, nil).want(t, http.StatusAccepted, "") // the new job, queued
	// A job never created answers the plain 404.
	res = env.do("GET", "/v2/input-proof/"+domain.NewJobID().String(), nil)
	res.want(t, http.StatusNotFound, labelNotFound)
	if strings.Contains(res.Env.Error.Message, "archived") {
		t.Fatalf("a job never created is said to be archived: %s", res.Body)
	}

	// The transitions stream from the start says first, without an id, that the retired job's
	// transitions are not in it (found by an outside probe: it left them out silently); one
	// that starts at the retirement's horizon goes straight to the transitions after it.
	st := opOpenStream(t, env.ts.URL+"/v1/transitions?from=0", jtAuth...)
	if ev := st.event(); ev.Event != "archived" || ev.ID != "" || ev.Data != fmt.Sprintf(`{"upTo":%d}`, head) {
		t.Fatalf("the stream from 0 begins with %+v, want an archived event up to %d", ev, head)
	}
	if ev := st.event(); ev.Event != "transition" {
		t.Fatalf("after the archived event: %+v, want the live transitions", ev)
	}
	st = opOpenStream(t, env.ts.URL+fmt.Sprintf("/v1/transitions?from=%d", head), jtAuth...)
	if ev := st.event(); ev.Event != "transition" {
		t.Fatalf("the stream from the horizon begins with %+v, want a transition", ev)
	}
}
