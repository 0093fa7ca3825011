package callgraph

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Bounds of the search for other ways (VerifyOnlyTakenWays).
const (
	// waySlack is how many names longer than the reference a way may be.
	waySlack = 3
	// wayLimit caps how many ways are looked at.
	wayLimit = 200_000
)

// A Detail is a stretch of the run's way that a right answer may name or
// leave out: functions the reference steps over because the call that
// matters is a literal they run (a retrying registration that calls its
// success callback, a helper that sends a message). Names come in the
// chain right after the name After.
type Detail struct {
	After string
	Names []string
}

// RightAnswers returns the reference with each combination of details
// put in: every spelling of the way the program took.
func RightAnswers(reference []string, details []Detail) ([][]string, error) {
	answers := [][]string{reference}
	for _, d := range details {
		for _, a := range answers {
			i := slices.Index(a, d.After)
			if i < 0 {
				return nil, fmt.Errorf("a detail goes after %s, which is not in the reference", d.After)
			}
			answers = append(answers, slices.Insert(slices.Clone(a), i+1, d.Names...))
		}
	}
	return answers, nil
}

// VerifyOnlyTakenWays proves that a reading exercise accepts the way the
// program took and no other: every right answer (RightAnswers) passes
// Check on run; and of every simple way from from to to in the call
// graph, up to a few names longer than the reference, every other one
// fails. It returns what it checked, in a few words.
func (g *Graph) VerifyOnlyTakenWays(reference []string, details []Detail, from, to string, run *Run) (string, error) {
	a, err := g.resolve(from)
	if err != nil {
		return "", err
	}
	b, err := g.resolve(to)
	if err != nil {
		return "", err
	}
	right, err := RightAnswers(reference, details)
	if err != nil {
		return "", err
	}
	allowed := map[string]bool{}
	for _, chain := range right {
		var names []string
		for _, written := range chain {
			s, err := g.resolve(written)
			if err != nil {
				return "", err
			}
			names = append(names, g.display(s))
		}
		if r := g.Check(chain, from, to, run); !r.OK {
			return "", fmt.Errorf("the right answer %s does not pass: %s", strings.Join(names, " → "), r.Problem)
		}
		allowed[strings.Join(names, " ")] = true
	}
	maxLen := len(reference) + waySlack
	ways, complete := g.ways(a, b, maxLen, wayLimit)
	failed := 0
	var unexpected []string
	for _, way := range ways {
		names := g.names(way)
		switch {
		case !g.Check(names, from, to, run).OK:
			failed++
		case !allowed[strings.Join(names, " ")]:
			unexpected = append(unexpected, "\n  "+strings.Join(names, " → "))
		}
	}
	if len(unexpected) > 0 {
		return "", fmt.Errorf("these ways pass too, but are not right answers of the exercise "+
			"(if the run takes one, it names a detail the exercise lacks; if not, the check is too lenient):%s",
			strings.Join(unexpected, ""))
	}
	limit := ""
	if !complete {
		limit = fmt.Sprintf(" (the first %d)", wayLimit)
	}
	spellings := "its one spelling passes"
	if len(right) > 1 {
		spellings = fmt.Sprintf("its %d spellings pass", len(right))
	}
	return fmt.Sprintf("%s, and the %d other ways of up to %d names in the call graph%s fail",
		spellings, failed, maxLen, limit), nil
}

// ways returns the simple ways from a to b in the reader's call graph
// (each hop a call Check accepts), at most maxLen names long, at most
// limit of them; complete is false when the limit cut the search short.
// A depth-first search, pruned by each step's distance to b.
func (g *Graph) ways(a, b int32, maxLen, limit int) (ways [][]int32, complete bool) {
	// The steps within reach, and the calls between them.
	depth := map[int32]int{a: 0}
	callers := map[int32][]int32{}
	queue := []int32{a}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if depth[s] >= maxLen-1 {
			continue
		}
		for _, c := range g.directOf(s).callees {
			callers[c.step] = append(callers[c.step], s)
			if _, seen := depth[c.step]; !seen {
				depth[c.step] = depth[s] + 1
				queue = append(queue, c.step)
			}
		}
	}
	// How many calls each step is from b, at least.
	toB := map[int32]int{b: 0}
	queue = []int32{b}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, c := range callers[s] {
			if _, seen := toB[c]; !seen {
				toB[c] = toB[s] + 1
				queue = append(queue, c)
			}
		}
	}
	path := []int32{a}
	on := map[int32]bool{a: true}
	var walk func(s int32) bool
	walk = func(s int32) bool {
		for _, c := range g.directOf(s).callees {
			d, reaches := toB[c.step]
			if !reaches || on[c.step] || len(path)+1+d > maxLen {
				continue
			}
			if c.step == b {
				ways = append(ways, append(slices.Clone(path), b))
				if len(ways) >= limit {
					return false
				}
				continue
			}
			path, on[c.step] = append(path, c.step), true
			goOn := walk(c.step)
			path, on[c.step] = path[:len(path)-1], false
			if !goOn {
				return false
			}
		}
		return true
	}
	complete = walk(a)
	return ways, complete
}

func (g *Graph) names(path []int32) []string {
	var names []string
	for _, s := range path {
		names = append(names, g.display(s))
	}
	return names
}

// Known reports whether written names a function of the runtime that a
// chain may hold.
func (g *Graph) Known(written string) bool {
	_, err := g.resolve(written)
	return err == nil
}

// NamesGivenAway returns the functions words names that a learner who
// wrote chain did not write: names of the runtime that are not in chain,
// not from or to, and not a spelling of a name in chain (one or two
// typing mistakes away, as the checker suggests for a name it does not
// know). The checker's words about a chain must give none away.
func (g *Graph) NamesGivenAway(words string, chain []string, from, to string) []string {
	written := map[string]bool{}
	for _, w := range append([]string{from, to}, chain...) {
		if s, err := g.resolve(w); err == nil {
			written[g.display(s)] = true
		}
	}
	var given []string
	for _, name := range nameLike.FindAllString(words, -1) {
		s, err := g.resolve(name)
		if err != nil || written[g.display(s)] || slices.Contains(given, g.display(s)) {
			continue
		}
		near := false
		for _, w := range chain {
			near = near || distance(strings.ToLower(w), strings.ToLower(g.display(s))) <= maxTypos
		}
		if !near {
			given = append(given, g.display(s))
		}
	}
	return given
}

// FollowTheWords plays a reader who never opens the code and does only
// what the checker's words say: it starts with the chain start (the
// answer template holds the first and the last name), and after each
// check it puts in any function name the words mention that its chain
// lacks (before the line the words complain about), swaps two lines when
// told they are the other way round, and drops a line that comes twice.
// judge checks a chain and returns whether it passes and everything the
// learner is shown; known says whether a word is a function a chain may
// hold. It returns how many checks it made and whether it reached a
// passing chain before it had nothing left to try or made max checks.
//
// A checker that hands out the answer, naming the function to write
// next, lets it reach green; one that only says what is wrong does not.
func FollowTheWords(judge func(chain []string) (bool, string), known func(string) bool, start []string, max int) (checks int, green bool) {
	chain := slices.Clone(start)
	tried := map[string]bool{}
	for checks < max {
		key := strings.Join(chain, " ")
		if tried[key] {
			return checks, false // back where it was: nothing new to try
		}
		tried[key] = true
		ok, words := judge(chain)
		checks++
		if ok {
			return checks, true
		}
		next := followWords(chain, words, known)
		if next == nil {
			return checks, false
		}
		chain = next
	}
	return checks, false
}

var (
	lineNumber = regexp.MustCompile(`Line (\d+):`)
	nameLike   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*(?:\.\(?\*?[A-Za-z_][A-Za-z0-9_]*\)?){1,2}`)
)

// followWords is one move of FollowTheWords: the chain changed as the
// words say, or nil when they give nothing to act on.
func followWords(chain []string, words string, known func(string) bool) []string {
	at := len(chain) - 1 // the line complained about; by default the last
	if m := lineNumber.FindStringSubmatch(words); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n >= 2 && n <= len(chain) {
			at = n - 1
		}
	}
	for _, name := range nameLike.FindAllString(words, -1) {
		if known(name) && !slices.Contains(chain, name) {
			return slices.Insert(slices.Clone(chain), at, name)
		}
	}
	switch {
	case strings.Contains(words, "other way round") && at >= 1:
		swapped := slices.Clone(chain)
		swapped[at-1], swapped[at] = swapped[at], swapped[at-1]
		return swapped
	case strings.Contains(words, "twice in a row") && at >= 1:
		return slices.Delete(slices.Clone(chain), at, at+1)
	}
	return nil
}
