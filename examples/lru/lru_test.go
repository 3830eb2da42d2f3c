package lru

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

var epoch = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a manually advanced clock.
type fakeClock struct{ t time.Time }

func (f *fakeClock) now() time.Time          { return f.t }
func (f *fakeClock) advance(d time.Duration) { f.t = f.t.Add(d) }

func TestMain(m *testing.M) {
	if _, err := New[string, int](0, 0, nil); err == nil {
		fmt.Fprintln(os.Stderr, "New accepted capacity 0")
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// run applies a script such as "put a 1; get a; wait 5s; get a" and
// returns what the gets saw, e.g. "1 miss".
func run(t *testing.T, c *Cache[string, int], clock *fakeClock, script string) string {
	t.Helper()
	var seen []string
	for _, step := range strings.Split(script, ";") {
		f := strings.Fields(step)
		switch {
		case len(f) == 3 && f[0] == "put":
			var v int
			fmt.Sscan(f[2], &v)
			c.Put(f[1], v)
		case len(f) == 2 && f[0] == "get":
			if v, ok := c.Get(f[1]); ok {
				seen = append(seen, fmt.Sprint(v))
			} else {
				seen = append(seen, "miss")
			}
		case len(f) == 2 && f[0] == "del":
			c.Delete(f[1])
		case len(f) == 2 && f[0] == "wait":
			d, err := time.ParseDuration(f[1])
			if err != nil {
				t.Fatalf("bad step %q: %v", step, err)
			}
			clock.advance(d)
		default:
			t.Fatalf("bad step %q", step)
		}
	}
	return strings.Join(seen, " ")
}

func TestCache(t *testing.T) {
	cases := []struct {
		name     string
		capacity int
		ttl      time.Duration
		script   string
		want     string
		wantKeys []string
	}{
		{"get after put", 2, 0, "put a 1; get a", "1", []string{"a"}},
		{"get after put", 2, time.Minute, "put a 1; wait 30s; get a", "1", []string{"a"}},
		{"miss on empty", 2, 0, "get a", "miss", []string{}},
		{"evicts least recently used", 2, 0, "put a 1; put b 2; get a; put c 3; get b; get a; get c", "1 miss 1 3", []string{"c", "a"}},
		{"overwrite keeps size", 2, 0, "put a 1; put a 2; put b 3; get a", "2", []string{"a", "b"}},
		{"delete frees room", 2, 0, "put a 1; put b 2; del a; put c 3; get b; get c", "2 3", []string{"c", "b"}},
		{"capacity one", 1, 0, "put a 1; put b 2; get a; get b", "miss 2", []string{"b"}},
		{"expires after ttl", 3, time.Minute, "put a 1; wait 61s; get a", "miss", []string{}},
		{"expires exactly at ttl", 3, time.Minute, "put a 1; wait 60s; get a", "miss", []string{}},
		{"rewrite renews ttl", 3, time.Minute, "put a 1; wait 40s; put a 2; wait 40s; get a", "2", []string{"a"}},
		{"renewed entry expires at its new deadline", 3, time.Minute, "put a 1; wait 40s; put a 2; wait 60s; get a", "miss", []string{}},
		{"entries with a ttl count toward capacity", 2, time.Minute, "put a 1; put b 2; put c 3", "", []string{"c", "b"}},
		{"delete before the deadline", 2, time.Minute, "put a 1; put b 2; del a", "", []string{"b"}},
		{"only the stale entry expires", 3, time.Second, "put a 1; wait 500ms; put b 2; wait 500ms; get a; get b", "miss 2", []string{"b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: epoch}
			c, err := New[string, int](tc.capacity, tc.ttl, clock.now)
			if err != nil {
				t.Fatal(err)
			}
			if got := run(t, c, clock, tc.script); got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.script, got, tc.want)
			}
			if keys := c.Keys(); !slices.Equal(keys, tc.wantKeys) {
				t.Errorf("%s: keys %v, want %v", tc.script, keys, tc.wantKeys)
			}
		})
	}
}

func TestEvictionCallback(t *testing.T) {
	clock := &fakeClock{t: epoch}
	c, err := New[string, int](2, time.Minute, clock.now)
	if err != nil {
		t.Fatal(err)
	}
	var evicted []string
	c.OnEvict(func(k string, v int) { evicted = append(evicted, fmt.Sprintf("%s=%d", k, v)) })
	run(t, c, clock, "put a 1; put b 2; put c 3; wait 2m; get b")
	if want := []string{"a=1", "b=2"}; !slices.Equal(evicted, want) {
		t.Errorf("evicted %v, want %v", evicted, want)
	}
	if s := c.Stats(); s != (Stats{Misses: 1, Evictions: 1, Expirations: 1}) {
		t.Errorf("stats %+v", s)
	}
}

func TestRejectsBadConfiguration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		capacity int
		ttl      time.Duration
	}{{0, 0}, {-1, 0}, {1, -time.Second}} {
		if _, err := New[int, int](tc.capacity, tc.ttl, nil); err == nil {
			t.Errorf("New(%d, %v) accepted", tc.capacity, tc.ttl)
		}
	}
}

func TestWallClock(t *testing.T) {
	if testing.Short() {
		t.Skip("uses the real clock")
	}
	c, err := New[string, string](4, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Put("k", "v")
	if v, ok := c.Get("k"); !ok || v != "v" {
		t.Errorf("Get = %q, %v", v, ok)
	}
}
