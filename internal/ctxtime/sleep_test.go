package ctxtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("a sleep that ran out: %v, want nil", err)
	}
	// An hour's sleep that a cancel ends: were it not ended, the test
	// would run into go test's timeout.
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a sleep whose context was cancelled: %v, want %v", err, context.Canceled)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a sleep past its context's deadline: %v, want %v", err, context.DeadlineExceeded)
	}
}
