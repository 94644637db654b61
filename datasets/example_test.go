package datasets_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpump/gpump/datasets"
	"gorgonia.org/tensor"
)

func ExampleReadNPY() {
	dir, err := os.MkdirTemp("", "datasets-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rps.npy")

	// Write rock-paper-scissors as float64 and read it back as float32.
	a, err := datasets.Cyclic(tensor.Float64, 3)
	if err != nil {
		log.Fatal(err)
	}
	if err := datasets.WriteNPY(path, a); err != nil {
		log.Fatal(err)
	}
	b, err := datasets.ReadNPY(path, &datasets.ReadOptions{DType: tensor.Float32})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Shape(), b.Dtype())
	fmt.Println(b.Data())
	// Output:
	// (3, 3) float32
	// [0 -1 1 1 0 -1 -1 1 0]
}

func ExampleReadCSV() {
	dir, err := os.MkdirTemp("", "datasets-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rps.csv")

	// A header row, a comment and blank lines are skipped; fields are
	// separated by commas or by spaces and tabs.
	text := "rock,paper,scissors\n# the row player's payoffs\n0, -1, 1\n\n1, 0, -1\n-1, 1, 0\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
	a, err := datasets.ReadCSV(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Shape(), a.Dtype(), a.Data())

	// Errors name the file's line and field.
	os.WriteFile(path, []byte("1,2\n3,four\n"), 0o644)
	_, err = datasets.ReadCSV(path, nil)
	fmt.Println(errors.Is(err, datasets.ErrFormat), strings.TrimPrefix(err.Error(), "datasets: "+path+": "))
	// Output:
	// (3, 3) float64 [0 -1 1 1 0 -1 -1 1 0]
	// true bad number "four" at line 2, column 2
}

func ExampleDecodeMTX() {
	// A symmetric matrix lists its lower triangle only.
	const file = `%%MatrixMarket matrix coordinate real symmetric
% only the lower triangle is listed
3 3 6
1 1 1
2 1 0
3 1 2
2 2 1
3 2 0
3 3 1
`
	a, err := datasets.DecodeMTX(strings.NewReader(file), -1, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Shape(), a.Dtype())
	fmt.Println(a.Data())

	_, err = datasets.DecodeMTX(strings.NewReader("%%MatrixMarket matrix array real general\n2 1\n1\nNaN\n"), -1, nil)
	fmt.Println(err)
	// Output:
	// (3, 3) float64
	// [1 0 2 0 1 0 2 0 1]
	// datasets: non-finite entry NaN at (1, 0) at line 4, column 1
}

func ExampleWriteNPZ() {
	dir, err := os.MkdirTemp("", "datasets-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "game.npz")

	// A payoff matrix and a strategy vector in one compressed archive,
	// as numpy.savez_compressed(path, payoff=a, row=p) writes it.
	a, err := datasets.Cyclic(tensor.Float64, 3)
	if err != nil {
		log.Fatal(err)
	}
	p := tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{1. / 3, 1. / 3, 1. / 3}))
	err = datasets.WriteNPZ(path, []datasets.Array{{Name: "payoff", T: a}, {Name: "row", T: p}}, &datasets.WriteOptions{Compress: true})
	if err != nil {
		log.Fatal(err)
	}
	names, err := datasets.NPZMembers(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names)
	b, err := datasets.ReadNPZ(path, &datasets.ReadOptions{Key: "payoff", DType: tensor.Float32})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Shape(), b.Dtype(), b.Data())
	// Output:
	// [payoff row]
	// (3, 3) float32 [0 -1 1 1 0 -1 -1 1 0]
}

func ExampleUniform() {
	a, err := datasets.Uniform(tensor.Float64, 2, 3, -1, 1, 42)
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			v, _ := a.At(i, j)
			fmt.Printf("%8.4f", v)
		}
		fmt.Println()
	}
	// Output:
	//  -0.4933  0.0892 -0.7410
	//   0.6397 -0.8615 -0.3218
}

func ExampleNemirovski() {
	a, err := datasets.Nemirovski(tensor.Float64, 4, 2, 1)
	if err != nil {
		log.Fatal(err)
	}
	// Entries are ((|i-j|+1)/7)^1; print them in sevenths.
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			v, _ := a.At(i, j)
			fmt.Printf("%4.0f", 7*v.(float64))
		}
		fmt.Println()
	}
	fmt.Printf("value %.6f = 5/14\n", datasets.Nemirovski2Value(4))
	// Output:
	//    1   2   3   4
	//    2   1   2   3
	//    3   2   1   2
	//    4   3   2   1
	// value 0.357143 = 5/14
}

func ExampleValidate() {
	a := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 2, 3, 0}))
	fmt.Println(datasets.Validate(a))
	a.Data().([]float64)[3] = 1 / a.Data().([]float64)[3]
	fmt.Println(datasets.Validate(a))
	// Output:
	// <nil>
	// datasets: non-finite entry +Inf at (1, 1)
}
