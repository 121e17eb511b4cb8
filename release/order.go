package release

import (
	"sort"
)

// group is a package's place in the publish order: packs and libraries, then templates, then
// the root.
func group(role string) int {
	switch role {
	case RoleTemplate:
		return 1
	case RoleRoot:
		return 2
	}
	return 0
}

// publishOrder sorts the publishable packages: by group, and inside a group each package after
// the workspace packages it depends on (dependencies, peerDependencies, optionalDependencies),
// ties broken by folder. The graph spans every publishable package, released or not, so an
// order through an unreleased package still holds. It also returns the dependency cycles that
// hold a package this plan releases.
func publishOrder(all []*considered) ([]*considered, [][]*considered) {
	byName := map[string]*considered{}
	for _, c := range all {
		if c.pkg.Name != "" {
			if _, dup := byName[c.pkg.Name]; !dup {
				byName[c.pkg.Name] = c
			}
		}
	}
	nodes := append([]*considered{}, all...)
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].pkg.Dir < nodes[j].pkg.Dir })
	index := map[*considered]int{}
	for i, c := range nodes {
		index[c] = i
	}
	edges := make([][]int, len(nodes)) // i depends on edges[i]
	for i, c := range nodes {
		seen := map[int]bool{}
		for _, dep := range c.pkg.Deps {
			d, ok := byName[dep]
			if !ok || d == c {
				continue
			}
			j := index[d]
			if !seen[j] {
				seen[j] = true
				edges[i] = append(edges[i], j)
			}
		}
		sort.Ints(edges[i])
	}

	comp := tarjan(len(nodes), edges)
	ncomp := 0
	for _, k := range comp {
		ncomp = max(ncomp, k+1)
	}
	members := make([][]int, ncomp)
	for i, k := range comp {
		members[k] = append(members[k], i) // node indexes ascend, so members are in folder order
	}
	// Kahn over the components, smallest first folder first among the ready ones.
	pending := make([]int, ncomp)             // unmet dependencies per component
	dependents := make([]map[int]bool, ncomp) // component → components depending on it
	for i := range dependents {
		dependents[i] = map[int]bool{}
	}
	for i, deps := range edges {
		for _, j := range deps {
			ci, cj := comp[i], comp[j]
			if ci != cj && !dependents[cj][ci] {
				dependents[cj][ci] = true
				pending[ci]++
			}
		}
	}
	var ready []int
	for k := range ncomp {
		if pending[k] == 0 {
			ready = append(ready, k)
		}
	}
	var order []*considered
	var cycles [][]*considered
	for len(ready) > 0 {
		sort.Slice(ready, func(a, b int) bool { return members[ready[a]][0] < members[ready[b]][0] })
		k := ready[0]
		ready = ready[1:]
		var cs []*considered
		for _, i := range members[k] {
			cs = append(cs, nodes[i])
		}
		order = append(order, cs...)
		if len(cs) > 1 {
			for _, c := range cs {
				if c.release != nil {
					cycles = append(cycles, cs)
					break
				}
			}
		}
		for d := range dependents[k] {
			pending[d]--
			if pending[d] == 0 {
				ready = append(ready, d)
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return group(order[i].role) < group(order[j].role) })
	return order, cycles
}

// tarjan returns the strongly connected component of each node.
func tarjan(n int, edges [][]int) []int {
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	comp := make([]int, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next, ncomp := 0, 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range edges[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for v := range n {
		if index[v] < 0 {
			visit(v)
		}
	}
	return comp
}
