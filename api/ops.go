package api

import (
	"context"
	"net/http"
	"time"
)

// opsRoutes are the audit, operator, health and docs endpoints. The audit view and the stream
// read the log, so they are under the per-client limits like the v2 endpoints.
func (s *Server) opsRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Pattern: "/v1/jobs", Name: "job search", handler: s.limited(s.operator(s.searchJobs))},
		{Method: http.MethodPost, Pattern: "/v1/jobs/cancel", Name: "cancel the jobs a search selects", handler: s.admin(s.cancelJobs)},
		{Method: http.MethodPost, Pattern: "/v1/jobs/{jobId}/cancel", Name: "cancel a job", handler: s.admin(s.cancelJob)},
		{Method: http.MethodPost, Pattern: "/v1/jobs/retry", Name: "retry the jobs a search selects", handler: s.admin(s.retryJobs)},
		{Method: http.MethodPost, Pattern: "/v1/jobs/{jobId}/retry", Name: "retry a job", handler: s.admin(s.retryJob)},
		{Method: http.MethodGet, Pattern: "/v1/jobs/{jobId}/events", Name: "job events (audit)", handler: s.limited(s.operator(s.jobEvents))},
		// Not behind the inbound limiter: an open stream would hold one of its client's request
		// slots for as long as it lasts. Streams have their own caps (StreamsConfig).
		{Method: http.MethodGet, Pattern: "/v1/transitions", Name: "transitions stream (SSE)", handler: s.operator(s.transitions)},
		{Method: http.MethodGet, Pattern: "/v1/overview", Name: "operators' overview", handler: s.limited(s.operator(s.overview))},
		{Method: http.MethodGet, Pattern: "/metrics", Name: "Prometheus metrics", handler: s.serveMetrics},
		{Method: http.MethodGet, Pattern: "/healthz", Name: "health", handler: s.healthz},
		{Method: http.MethodGet, Pattern: "/liveness", Name: "liveness", handler: s.liveness},
		{Method: http.MethodGet, Pattern: "/version", Name: "build version", handler: s.version},
		{Method: http.MethodGet, Pattern: "/docs", Name: "API documentation", handler: s.docsPage},
		{Method: http.MethodGet, Pattern: "/docs/openapi.yaml", Name: "OpenAPI document", handler: s.openAPIDocument},
	}
}

// opsTuning overrides, for one request, defaults of the operator endpoints that have no
// configuration setting yet: the stream's heartbeat (DefaultHeartbeat) and the health check's
// lag threshold (DefaultMaxProjectionLag). Only the package's tests set it (context.WithValue
// with opsTuningKey), to get short heartbeats and small thresholds; should operators need to
// tune them, they become Config fields read by heartbeatFor and maxLagFor.
type opsTuning struct {
	heartbeat time.Duration
	maxLag    uint64
	maxLagSet bool
}

type opsTuningKey struct{}

func tuningOf(ctx context.Context) opsTuning {
	t, _ := ctx.Value(opsTuningKey{}).(opsTuning)
	return t
}
