package server

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Health endpoints for a load balancer or an orchestrator, served beside
// /metrics (cmd/redimo-server's --metrics-addr).

// readyCacheTTL is how long /readyz reuses the table's last answer, so
// that many probes cost at most one DescribeTable a second.
const readyCacheTTL = time.Second

// readyTimeout bounds the DescribeTable of a /readyz probe.
const readyTimeout = 2 * time.Second

// HealthHandler returns the handler of /healthz and /readyz:
//
//   - /healthz answers 200 while the server accepts and serves
//     connections, and 503 once Shutdown has begun (the process is
//     draining: take it out of rotation, do not restart it).
//   - /readyz answers 200 when the table answers (Client.CheckTable: one
//     DescribeTable, no capacity units, reused for a second), and 503
//     with the reason when it does not (table deleted, DynamoDB
//     unreachable, credentials expired) or Shutdown has begun.
//
// Other paths are 404.
func (s *Server) HealthHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if s.isClosing() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.isClosing() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		if err := s.ready.check(r.Context(), s); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// readiness caches the table check of /readyz.
type readiness struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

func (r *readiness) check(ctx context.Context, s *Server) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.at.IsZero() && time.Since(r.at) < readyCacheTTL {
		return r.err
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	r.err, r.at = s.cfg.Client.CheckTable(ctx), time.Now()
	return r.err
}
