package datasets_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

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
