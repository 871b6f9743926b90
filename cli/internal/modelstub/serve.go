package modelstub

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultLifetime bounds how long a server runs when nothing stops it.
const DefaultLifetime = 10 * time.Minute

// Handler returns the handler for api: "anthropic", "openai" or "gemini".
func Handler(api string, rec *Recorder, replies *Replies) (http.Handler, error) {
	switch api {
	case "anthropic":
		return Anthropic(rec, replies), nil
	case "openai":
		return OpenAI(rec, replies), nil
	case "gemini":
		return Gemini(rec, replies), nil
	}
	return nil, fmt.Errorf("unknown api %q (want anthropic, openai or gemini)", api)
}

// ServeOptions configure Serve.
type ServeOptions struct {
	// Handler answers the requests.
	Handler http.Handler
	// AddrFile, when set, receives "127.0.0.1:PORT" once the server listens
	// (written atomically, so a reader never sees a partial address).
	AddrFile string
	// Lifetime stops the server by itself (DefaultLifetime when zero).
	Lifetime time.Duration
}

// Serve listens on 127.0.0.1 (a free port) and serves until ctx is done or
// the lifetime has passed; reaching the lifetime is not an error.
func Serve(ctx context.Context, opts ServeOptions) error {
	if opts.Lifetime <= 0 {
		opts.Lifetime = DefaultLifetime
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Lifetime)
	defer cancel()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	srv := &http.Server{
		Handler:           opts.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       time.Minute,
	}
	if opts.AddrFile != "" {
		if err := writeAtomic(opts.AddrFile, ln.Addr().String()+"\n"); err != nil {
			ln.Close()
			return err
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

func writeAtomic(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write address file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write address file: %w", err)
	}
	return nil
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

// String joins the values (flag.Value).
func (m *multiFlag) String() string { return strings.Join(*m, ",") }

// Set adds one value (flag.Value).
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// Main is the `modelstub` program of the end-to-end tests:
//
//	modelstub serve -api anthropic|openai|gemini [-addr-file F] [-log F]
//	    [-reply TEXT]... [-reply-file F]... [-default TEXT] [-lifetime D]
//
// It serves until ctx is done (SIGINT/SIGTERM) or the lifetime has passed,
// and returns the process exit code.
func Main(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(stderr, "usage: modelstub serve -api anthropic|openai|gemini [-addr-file F] [-log F] [-reply TEXT]... [-reply-file F]... [-default TEXT] [-lifetime D]")
		return 2
	}
	fs := flag.NewFlagSet("modelstub serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	api := fs.String("api", "", "The API to stand in for: anthropic, openai or gemini.")
	addrFile := fs.String("addr-file", "", "Write the listen address (127.0.0.1:PORT) to this file.")
	logFile := fs.String("log", "", "Append every request as a JSON line to this file.")
	def := fs.String("default", DefaultReply, "The answer once the reply queue is empty.")
	lifetime := fs.Duration("lifetime", DefaultLifetime, "Stop by itself after this long.")
	var replies, replyFiles multiFlag
	fs.Var(&replies, "reply", "Queue this answer (repeatable, in order).")
	fs.Var(&replyFiles, "reply-file", "Queue the content of this file as one answer (repeatable, after the -reply answers).")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	texts := append([]string(nil), replies...)
	for _, f := range replyFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "modelstub: read reply: %v\n", err)
			return 1
		}
		texts = append(texts, string(b))
	}
	var w io.Writer
	if *logFile != "" {
		if err := os.MkdirAll(filepath.Dir(*logFile), 0o755); err != nil {
			fmt.Fprintf(stderr, "modelstub: %v\n", err)
			return 1
		}
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "modelstub: open log: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	h, err := Handler(*api, NewRecorder(w), NewReplies(*def, texts...))
	if err != nil {
		fmt.Fprintf(stderr, "modelstub: %v\n", err)
		return 2
	}
	if err := Serve(ctx, ServeOptions{Handler: h, AddrFile: *addrFile, Lifetime: *lifetime}); err != nil {
		fmt.Fprintf(stderr, "modelstub: %v\n", err)
		return 1
	}
	return 0
}
