// Command redimo-server serves the Redis SET and SORTED SET commands over
// the Redis protocol (RESP2 and RESP3), storing the data in a DynamoDB
// table through redimo, so that any Redis client — redis-cli,
// redis-benchmark, redis-py, go-redis — can use it.
//
//	redimo-server [flags]
//
//	redimo-server --endpoint http://127.0.0.1:8000 --create-table   # DynamoDB Local
//	redimo-server --table redimo --region eu-west-1                 # AWS
//	redis-cli -p 6380 SADD visitors u1 u2
//
// Besides the library's commands (SADD ... SDIFFSTORE, Z*, DEL, UNLINK,
// EXISTS, TYPE) it answers what clients send on connect: PING, ECHO,
// HELLO (RESP3), AUTH, SELECT 0, CLIENT ID/GETNAME/SETNAME/SETINFO/INFO/
// LIST, COMMAND (COUNT, LIST, INFO, DOCS), CONFIG GET, INFO, TIME, QUIT.
// Replies follow Redis 7.0 byte for byte, except that unordered replies
// (SMEMBERS, SINTER...) come in byte order, and SSCAN returns every match
// for cursor 0 with the next cursor 0.
//
// --tls-addr with --tls-cert-file and --tls-key-file (and optionally
// --tls-ca-cert-file, which makes client certificates required) serves
// TLS connections, as redis-server's tls-port; --metrics-addr serves
// Prometheus metrics, /healthz and /readyz.
//
// A command, once started, runs to its end (bounded by --command-timeout)
// even when its client disconnects; the commands the client pipelined
// behind it are not run. A blocking command's wait (BZPOPMIN...) ends when
// its client disconnects. --timeout N closes a connection idle for N
// seconds, as Redis's timeout (off by default). SIGTERM or SIGINT stops
// accepting connections and reading commands, lets the commands in flight
// finish and reply (for up to --shutdown-timeout, 60 s by default),
// answers blocked commands still waiting with their timeout reply (nil),
// and exits 0; if the drain timeout passes, the commands still running
// are cancelled and it exits 1.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redimo-go/redimo"
	"github.com/redimo-go/redimo/internal/connect"
	"github.com/redimo-go/redimo/internal/server"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("redimo-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		db          connect.Flags
		addr        = fs.String("addr", envOr("REDIMO_ADDR", "127.0.0.1:6380"), "listen address (env REDIMO_ADDR); empty: no plaintext listener (redis-server's port 0)")
		tlsAddr     = fs.String("tls-addr", os.Getenv("REDIMO_TLS_ADDR"), "listen address for TLS connections, as redis-server's tls-port (env REDIMO_TLS_ADDR); needs --tls-cert-file and --tls-key-file; empty: no TLS")
		tlsCert     = fs.String("tls-cert-file", os.Getenv("REDIMO_TLS_CERT_FILE"), "PEM certificate (chain) the TLS listener presents (env REDIMO_TLS_CERT_FILE)")
		tlsKey      = fs.String("tls-key-file", os.Getenv("REDIMO_TLS_KEY_FILE"), "PEM private key of --tls-cert-file (env REDIMO_TLS_KEY_FILE)")
		tlsCA       = fs.String("tls-ca-cert-file", os.Getenv("REDIMO_TLS_CA_CERT_FILE"), "PEM CA certificates; when set, TLS clients must present a certificate signed by one of them, as redis-server's tls-auth-clients yes (env REDIMO_TLS_CA_CERT_FILE)")
		password    = fs.String("requirepass", os.Getenv("REDIMO_PASSWORD"), "password clients must AUTH with (env REDIMO_PASSWORD); empty: none")
		createTable = fs.Bool("create-table", false, "create the table (on-demand billing) when it does not exist, and check its schema")
		maxClients  = fs.Int("maxclients", server.DefaultMaxClients, "maximum open connections")
		grace       = fs.Duration("shutdown-timeout", 60*time.Second, "on SIGTERM/SIGINT, how long in-flight commands may take to finish before they are cancelled (the drain timeout)")
		cmdTimeout  = fs.Duration("command-timeout", server.DefaultCommandTimeout, "how long a command may run once started; it completes even if its client disconnects (blocking commands' waits excepted); negative: no bound")
		idle        = fs.Int("timeout", 0, "close a client's connection after it has been idle this many seconds, as Redis's timeout; 0: never")
		verbose     = fs.Bool("v", false, "log connections' protocol errors and more")
		metricsAddr = fs.String("metrics-addr", os.Getenv("REDIMO_METRICS_ADDR"),
			"serve Prometheus metrics (per command: calls, latency histogram, DynamoDB requests, RCU, WCU, conflicts, retries) at http://ADDR/metrics, and /healthz and /readyz (env REDIMO_METRICS_ADDR); empty: off")
	)
	db.Register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: redimo-server [flags]\n\nServes redimo (Redis sets and sorted sets on DynamoDB) over the Redis protocol.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "redimo-server: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *idle < 0 || *idle > math.MaxInt32 { // Redis's range for timeout
		fmt.Fprintf(stderr, "redimo-server: --timeout %d: must be 0 to %d seconds\n", *idle, math.MaxInt32)
		return 2
	}
	var tlsConfig *tls.Config
	switch {
	case *tlsAddr != "":
		cfg, err := server.TLSConfig(*tlsCert, *tlsKey, *tlsCA)
		if err != nil {
			fmt.Fprintf(stderr, "redimo-server: --tls-addr: %v (give --tls-cert-file and --tls-key-file)\n", err)
			return 2
		}
		tlsConfig = cfg
	case *tlsCert != "" || *tlsKey != "" || *tlsCA != "":
		fmt.Fprintln(stderr, "redimo-server: --tls-cert-file, --tls-key-file and --tls-ca-cert-file need --tls-addr, the address TLS clients connect to")
		return 2
	case *addr == "":
		fmt.Fprintln(stderr, "redimo-server: --addr is empty and there is no --tls-addr: nothing to listen on")
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// Setup mistakes end the program at once, with the fix in one line.
	fail := func(err error) int {
		fmt.Fprintln(stderr, "redimo-server:", db.Explain(err))
		return 1
	}
	client, info, err := db.Client(ctx, func(o *redimo.Options) { o.Metrics = server.Record })
	if err != nil {
		return fail(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	if *createTable {
		err = client.CreateTable(cctx)
	} else {
		err = client.CheckTable(cctx)
	}
	cancel()
	if err != nil {
		return fail(err)
	}
	log.Info("table ready", "table", db.Table)
	// The listeners: plaintext on --addr, TLS on --tls-addr (either may
	// be off, as redis-server's port 0 and tls-port 0).
	var lns []net.Listener
	closeAll := func() {
		for _, l := range lns {
			l.Close()
		}
	}
	port := 0
	for _, l := range []struct {
		addr string
		tls  *tls.Config
	}{{*addr, nil}, {*tlsAddr, tlsConfig}} {
		if l.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			closeAll()
			log.Error("cannot listen", "addr", l.addr, "err", err)
			return 1
		}
		if l.tls != nil {
			ln = tls.NewListener(ln, l.tls)
		} else if _, p, err := net.SplitHostPort(ln.Addr().String()); err == nil {
			port, _ = strconv.Atoi(p)
		}
		lns = append(lns, ln)
	}
	srv := server.New(server.Config{
		Client: client, Password: *password, MaxClients: *maxClients, Logger: log, Info: info, Port: port,
		IdleTimeout: time.Duration(*idle) * time.Second, CommandTimeout: *cmdTimeout,
	})
	if *metricsAddr != "" {
		mln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			closeAll()
			log.Error("cannot listen for metrics", "err", err)
			return 1
		}
		reg := prometheus.NewRegistry()
		reg.MustRegister(srv.Collector(), collectors.NewGoCollector(),
			collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		health := srv.HealthHandler()
		mux.Handle("/healthz", health)
		mux.Handle("/readyz", health)
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs.Serve(mln) }()
		defer hs.Close()
		log.Info("metrics", "url", "http://"+mln.Addr().String()+"/metrics")
	}
	served := make(chan error, len(lns))
	for i, ln := range lns {
		go func() { served <- srv.Serve(ln) }()
		msg := "redimo-server listening"
		if i == len(lns)-1 && tlsConfig != nil {
			msg += " (TLS)"
		}
		log.Info(msg, "addr", ln.Addr().String(), "table", db.Table, "endpoint", info[1][1],
			"auth", *password != "")
	}

	select {
	case err := <-served:
		log.Error("serve", "err", err)
		return 1
	case <-ctx.Done():
	}
	stop() // a second signal kills the process
	log.Info("shutting down: finishing in-flight commands", "timeout", grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown timeout: in-flight commands were cancelled", "err", err)
		return 1
	}
	for range lns {
		<-served
	}
	log.Info("bye")
	return 0
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
