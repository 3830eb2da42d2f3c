package spectra

import (
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// storeWriter stores a collection's results from a goroutine of its own,
// in the order they are given, all those waiting in one transaction. A
// package's tests then wait neither for the encoding and writing of their
// chunks nor for the store's file lock, which packages storing at once
// took turns at, polled every 50 ms.
type storeWriter struct {
	s     *store
	queue chan storeJob
	done  chan struct{}
	close func() error

	mu  sync.Mutex
	err error // the first write that failed; the writes after it are not made
	// transactions and busy say how many transactions were made and how
	// long they and the encoding took, for the phase trace.
	transactions int
	busy         time.Duration
	// spare are the buffers of the last transaction's chunks, for the
	// next one's: growing a megabyte buffer for each chunk was a third
	// of the writer's CPU on expr.
	spare [][]byte
}

// storeJob is a chunk of a package's tests (key set), its record
// (result set), or the blocks and graphs of the instrumented files.
type storeJob struct {
	key    []byte
	tests  []storedTest
	result *storedPackage
	files  []storedFile
	flows  []storedFlow
	// stored, when set, is called once the job's transaction has
	// committed: a reader of the store finds the job's data from then on.
	stored func()
}

// maxBatchChunks bounds the chunks of tests written in one transaction,
// about that many times testChunkBytes.
const maxBatchChunks = 8

func newStoreWriter(s *store) *storeWriter {
	w := &storeWriter{s: s, queue: make(chan storeJob, 16), done: make(chan struct{})}
	w.close = sync.OnceValue(func() error {
		close(w.queue)
		<-w.done
		return w.failed()
	})
	go w.loop()
	return w
}

// putTests hands r's tests so far over as its next chunk, as
// store.putTests stores them. It returns the error of an earlier write.
func (w *storeWriter) putTests(r *storedPackage) error {
	if len(r.tests) == 0 {
		return w.failed()
	}
	key, tests := takeChunk(r)
	return w.send(storeJob{key: key, tests: tests})
}

// putFiles hands over the blocks and graphs of the build's files, those
// not stored yet to be stored first, in the transaction of the first
// results: the build does not wait for the store, and no result is
// stored without its files.
func (w *storeWriter) putFiles(files []storedFile, flows []storedFlow) error {
	return w.send(storeJob{files: files, flows: flows})
}

// putResult hands r over to be stored as store.putResult stores it, and
// calls stored (when not nil) once it is in the store. r must not change
// afterwards.
func (w *storeWriter) putResult(r *storedPackage, stored func()) error {
	if err := w.putTests(r); err != nil {
		return err
	}
	return w.send(storeJob{result: r, stored: stored})
}

func (w *storeWriter) send(j storeJob) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.queue <- j
	return nil
}

func (w *storeWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *storeWriter) loop() {
	defer close(w.done)
	for j := range w.queue {
		batch, n := []storeJob{j}, chunks(j)
	gather:
		for n < maxBatchChunks {
			select {
			case j, ok := <-w.queue:
				if !ok {
					break gather
				}
				batch, n = append(batch, j), n+chunks(j)
			default:
				break gather
			}
		}
		if w.failed() != nil {
			continue // the queue drains; nothing more is written
		}
		start := time.Now()
		err := w.write(batch)
		w.mu.Lock()
		w.transactions++
		w.busy += time.Since(start)
		if err != nil && w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
		if err != nil {
			continue
		}
		for _, j := range batch {
			if j.stored != nil {
				j.stored()
			}
		}
	}
}

func chunks(j storeJob) int {
	if j.key != nil {
		return 1
	}
	return 0
}

// write stores a batch in one transaction.
func (w *storeWriter) write(batch []storeJob) error {
	data := make([][]byte, len(batch))
	for i, j := range batch {
		if j.key == nil && j.result == nil {
			continue // files, encoded in the transaction
		}
		if j.result == nil {
			var buf []byte
			if n := len(w.spare); n > 0 {
				buf, w.spare = w.spare[n-1][:0], w.spare[:n-1]
			}
			data[i] = appendTests(buf, j.tests)
			continue
		}
		var err error
		if data[i], err = encodeResult(j.result); err != nil {
			return err
		}
	}
	err := w.s.transact(true, func(tx *bolt.Tx) error {
		for i, j := range batch {
			if j.key == nil && j.result == nil {
				if err := putAbsentTx(tx, bucketFiles, len(j.files), fileEntry(j.files)); err != nil {
					return err
				}
				if err := putAbsentTx(tx, bucketFlows, len(j.flows), flowEntry(j.flows)); err != nil {
					return err
				}
			} else if j.result == nil {
				if err := putChunk(tx, j.key, data[i]); err != nil {
					return err
				}
			} else if err := w.s.putRecord(tx, j.result, data[i]); err != nil {
				return err
			}
		}
		return nil
	})
	// bbolt holds a value only until its transaction ends.
	for i, j := range batch {
		if j.key != nil {
			w.spare = append(w.spare, data[i])
		}
	}
	return err
}

// report traces how long the writer worked and in how many transactions.
func (w *storeWriter) report(trace *phaseTrace) {
	w.mu.Lock()
	defer w.mu.Unlock()
	trace.since(time.Now().Add(-w.busy), fmt.Sprintf("store (%d transactions)", w.transactions))
}
