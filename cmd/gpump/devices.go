package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/gpump/gpump/internal/memlimit"

	"github.com/urfave/cli/v2"

	"github.com/gpump/gpump/tensorops"
)

// deviceDesc describes one device for gpump devices.
type deviceDesc struct {
	Device  string // the --device value
	Name    string
	Memory  int64   // bytes, 0 if unknown
	Detail  string  // compute capability, kernels...
	PeakBWs float64 // bytes per second, 0 if unknown
}

// listers describe the devices of each backend compiled in.
var listers = []func() ([]deviceDesc, error){listCPU}

func devicesCommand() *cli.Command {
	return &cli.Command{
		Name:  "devices",
		Usage: "list the devices this binary can solve on: the CPU, and CUDA GPUs in a cuda build",
		Description: `For each device: the --device value, its name, its memory, and details (the
CPU's cores and kernels; a GPU's compute capability, multiprocessors, peak
memory bandwidth and the driver version).

Example:
   gpump devices`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("devices takes no arguments, got %q", c.Args().First())
			}
			var all []deviceDesc
			for _, list := range listers {
				ds, err := list()
				if err != nil {
					return err
				}
				all = append(all, ds...)
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DEVICE\tNAME\tMEMORY\tDETAILS")
			for _, d := range all {
				mem := "?"
				if d.Memory > 0 {
					mem = fmt.Sprintf("%.1f GB", float64(d.Memory)/1e9)
				}
				detail := d.Detail
				if d.PeakBWs > 0 {
					detail += fmt.Sprintf(", peak %.0f GB/s", d.PeakBWs/1e9)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Device, d.Name, mem, detail)
			}
			if _, ok := openers["cuda"]; !ok {
				fmt.Fprintln(tw, "cuda\t(not compiled in: build with -tags cuda)\t\t")
			}
			return tw.Flush()
		},
	}
}

// listCPU describes this machine's CPU.
func listCPU() ([]deviceDesc, error) {
	c := tensorops.NewCPU(1)
	kernels := c.Kernels()
	c.Close()
	return []deviceDesc{{
		Device: "cpu",
		Name:   cpuModel(),
		Memory: int64(memlimit.Total()),
		Detail: fmt.Sprintf("%d cores, %s kernels", runtime.NumCPU(), kernels),
	}}, nil
}

// cpuModel is the CPU's model name where the system says it.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
