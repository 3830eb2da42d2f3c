package regress

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/faultline-go/faultline/internal/testbuild"
)

// keyFormat changes when what an explanation holds or how it is made
// changes in a way the faultline executable's hash would not tell.
const keyFormat = "explanation 1"

// CacheKey is the content key an explanation of t with opts is kept under
// in the module's cache: the base's content (its tree; when the base is
// to be bisected, the head commit, whose history bisecting reads), the
// content of every file of the module that differs from it in the working
// tree (untracked ones included; go.mod, go.sum and go.work always), the
// go command's environment, the faultline executable and the options. Any
// edit the explanation could see gives another key.
func CacheKey(ctx context.Context, mod *testbuild.Module, t testbuild.Target, opts Options) (string, error) {
	opts.defaults()
	r, err := openRepo(ctx, mod.Root, mod.Env())
	if err != nil {
		return "", err
	}
	modRel, err := r.relToTop(mod.Root)
	if err != nil {
		return "", err
	}
	self, err := mod.SelfHash()
	if err != nil {
		return "", err
	}
	env, err := mod.GoEnv(ctx)
	if err != nil {
		return "", err
	}
	d := sha256.New()
	fmt.Fprintf(d, "%s\n%s\n%s\n%s\n%s\n", keyFormat, self, env, t.Package, t.Test)
	fmt.Fprintf(d, "budget %s reruns %d run %s commits %d record %s strategy %s skip %q semantic %+v\n",
		opts.Budget, opts.MaxReruns, opts.RunTimeout, opts.MaxCommits, opts.RecordTimeout, opts.Strategy, opts.SkipCauses, opts.Semantic)
	fmt.Fprintf(d, "executed %v %d\n", opts.Executed == nil, len(opts.Executed))
	for _, l := range opts.Executed {
		fmt.Fprintf(d, "%s:%d\n", l.File, l.Line)
	}
	fmt.Fprintf(d, "passing %v\n", opts.Passing)
	from := opts.Base
	if from == "" {
		from = "HEAD"
	}
	commit, err := r.resolve(ctx, from)
	if err != nil {
		return "", err
	}
	if opts.Base == "" {
		fmt.Fprintf(d, "bisected from %s\n", commit)
	} else {
		tree, err := r.git(ctx, "rev-parse", "--verify", "--quiet", commit+"^{tree}")
		if err != nil {
			return "", fmt.Errorf("reading the tree of %s: %w", short(commit), err)
		}
		fmt.Fprintf(d, "base tree %s", tree)
	}
	statuses, err := r.changed(ctx, commit, modRel)
	if err != nil {
		return "", err
	}
	paths := []string{}
	for _, st := range statuses {
		paths = append(paths, st.Path)
	}
	for _, name := range []string{"go.mod", "go.sum", "go.work"} {
		if rel, err := r.relToTop(filepath.Join(mod.Root, name)); err == nil {
			paths = append(paths, rel)
		}
	}
	slices.Sort(paths)
	for _, p := range slices.Compact(paths) {
		data, ok, err := r.readWork(p)
		if err != nil {
			return "", fmt.Errorf("reading %s for the explanation's key: %w", p, err)
		}
		if ok {
			fmt.Fprintf(d, "%s %s\n", p, testbuild.Bytes(data))
		} else {
			fmt.Fprintf(d, "%s absent\n", p)
		}
	}
	return hex.EncodeToString(d.Sum(nil)), nil
}

// Cacheable reports whether the explanation may be kept under its
// CacheKey and given again for the same content: not when the budget ran
// out (a longer one, or a less loaded machine, could answer better) nor
// when the causes were left out at the memory bound.
func (ex *Explanation) Cacheable() bool {
	return !ex.BudgetRanOut && ex.NoRoot != NoRootMemory
}
