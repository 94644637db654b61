package games_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/games"
)

// List a batch as gpump batch does: a directory of payoff files and a
// manifest whose lines carry their own flags; then group the small
// same-shape files and read one group into a single stack.
func ExampleList() {
	dir, cleanup := scratch("games")
	defer cleanup()
	dir = filepath.Dir(dir)
	for k, name := range []string{"a.npy", "b.npy", "c.npy"} {
		a := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, -1, -1, float64(k)}))
		if err := datasets.WriteNPY(filepath.Join(dir, name), a); err != nil {
			fmt.Println(err)
			return
		}
	}
	manifest := filepath.Join(dir, "runs")
	if err := os.WriteFile(manifest, []byte("# a generator and a file, with flags\ngen:cyclic:n=5 --algo prm+\na.npy --eps 1e-9\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	l, err := games.List([]string{dir}, manifest, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range l.Instances {
		fmt.Printf("%d %s %q\n", in.Index, strings.TrimPrefix(in.Name, dir+"/"), strings.ReplaceAll(strings.Join(in.Args, " "), dir+"/", ""))
	}
	grouped := games.GroupFiles(l.Instances, 100)
	fmt.Println(len(grouped), "instances after grouping:", grouped[0].Name)
	s, members := games.ReadGroup(context.Background(), grouped[0], &datasets.ReadOptions{}, func(in *games.Instance, err error) {
		fmt.Println("not read:", in.Name, err)
	})
	fmt.Println("stack", s.A.Shape(), "of", len(members), "files")
	// Output:
	// 0 a.npy "-- a.npy"
	// 1 b.npy "-- b.npy"
	// 2 c.npy "-- c.npy"
	// 3 gen:cyclic:n=5 --algo prm+ "--gen cyclic:n=5 --algo prm+"
	// 4 a.npy --eps 1e-9 "--eps 1e-9 -- a.npy"
	// 3 instances after grouping: 3 files of 2×2
	// stack (3, 2, 2) of 3 files
}

// Names that are not valid UTF-8 keep apart in results, and the words of
// a manifest line keep their quoted spaces.
func ExampleSplitWords() {
	fmt.Println(games.DisplayName("a\xff.npy"), games.DisplayName("a\xfe.npy"))
	w, err := games.SplitWords(`"my game.npy" --eps 1e-6`)
	fmt.Printf("%q %v\n", w, err)
	// Output:
	// a\xff.npy a\xfe.npy
	// ["my game.npy" "--eps" "1e-6"] <nil>
}
