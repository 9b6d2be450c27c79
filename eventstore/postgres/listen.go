package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"relayer/workers/upstream"
)

// listener keeps one connection LISTENing to the channel every append transaction NOTIFYs, and
// wakes the store's subscribers on each notification, so that they follow appends made through
// other processes without polling. Appends through this store wake them directly.
//
// A notification is only a wake-up: subscribers read the log from where they are, so one
// notification for many commits, or one that comes late, loses nothing. When the connection
// fails, the listener wakes the subscribers (the commits it missed while deaf are in the log),
// logs it and connects again every PollInterval (jittered down to half, so that the instances
// a database restart cut off together do not all reconnect at the same instant); meanwhile
// subscribers poll at that interval.
type listener struct {
	connCfg *pgx.ConnConfig
	channel string
	retry   time.Duration // the nominal wait between two attempts to connect
	wake    func()
	log     *slog.Logger
	where   string
	secrets secrets
	cancel  context.CancelFunc
	exited  chan struct{}
}

// newListener returns the listener of s, not yet started.
func newListener(connCfg *pgx.ConnConfig, channel string, s *Store) *listener {
	return &listener{
		connCfg: connCfg,
		channel: channel,
		retry:   s.cfg.PollInterval,
		wake:    s.commits.Broadcast,
		log:     s.cfg.Logger,
		where:   s.where,
		secrets: s.secrets,
	}
}

// start connects the listening connection and starts the listener goroutine. It returns once
// LISTEN is in place, so that every commit after it wakes the subscribers.
func (l *listener) start(ctx context.Context) error {
	conn, err := l.connect(ctx)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.exited = make(chan struct{})
	go l.run(runCtx, conn)
	return nil
}

func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, l.connCfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{l.channel}.Sanitize()); err != nil {
		_ = conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// run is the listener goroutine. It owns conn.
func (l *listener) run(ctx context.Context, conn *pgx.Conn) {
	defer close(l.exited)
	defer func() {
		if conn != nil {
			_ = conn.Close(context.Background())
		}
	}()
	for {
		_, err := conn.WaitForNotification(ctx)
		if err == nil {
			l.wake()
			continue
		}
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("event store: lost the connection that listens for appends from other processes; subscribers poll until it is back",
			"store", l.where, "error", l.secrets.Scrub(err).Error())
		_ = conn.Close(context.Background())
		conn = nil
		l.wake()
		retry := upstream.Backoff{Base: l.retry, Jitter: upstream.EqualJitter}
		failures := 1
		timer := time.NewTimer(retry.Delay(failures, nil))
		for conn == nil {
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
			if conn, err = l.connect(ctx); err != nil {
				conn = nil
				failures++
				timer.Reset(retry.Delay(failures, nil))
			}
		}
		timer.Stop()
		l.log.Info("event store: listening for appends from other processes again", "store", l.where)
		// Commits made while nobody listened sent their notifications to nobody.
		l.wake()
	}
}

// stop ends the listener and closes its connection.
func (l *listener) stop() error {
	l.cancel()
	<-l.exited
	return nil
}
