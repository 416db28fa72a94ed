package tree

import "testing"

func TestGroupOf(t *testing.T) {
	for depth, want := range map[int][]string{
		0: {"", "", "", ""},
		1: {"", "a", "a", "a"},
		2: {"", "a", "a/b", "a/b"},
	} {
		for i, d := range []string{"", "a", "a/b", "a/b/c"} {
			if got := Depth(depth).GroupOf(d); got != want[i] {
				t.Errorf("depth %d: GroupOf(%q) = %q, want %q", depth, d, got, want[i])
			}
		}
	}
}
