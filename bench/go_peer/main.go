// The InfluxDB side of the TSM comparison (bench/go_peer/run.sh): InfluxDB 1.8.10's batch
// encoders and decoders (its tsdb/engine/tsm1 batch_*.go, assembled by run.sh from an
// InfluxDB checkout into a git-ignored GOPATH; none of its code is in this repository)
// over the inputs bench/tsm_bench.cc builds: the same std::mt19937_64 stream, seed and
// order of draws, so the same values. Each case prints the thread's CPU time a block
// (getrusage RUSAGE_THREAD, the goroutine locked to its thread), as Google Benchmark's CPU
// time does, and the block's size and FNV-1a hash so that run.sh can check that both
// sides encoded the same values to the same bytes.
//
//	go run . [-reps 5] [-min 0.2]
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"syscall"

	tsm "tsmgo"
)

// mt19937_64, as libstdc++'s std::mt19937_64 (the standard's parameters).
type mt64 struct {
	s [312]uint64
	i int
}

func newMt64(seed uint64) *mt64 {
	m := &mt64{i: 312}
	m.s[0] = seed
	for i := 1; i < 312; i++ {
		m.s[i] = 6364136223846793005*(m.s[i-1]^(m.s[i-1]>>62)) + uint64(i)
	}
	return m
}

func (m *mt64) next() uint64 {
	if m.i >= 312 {
		for i := 0; i < 312; i++ {
			x := (m.s[i] & 0xFFFFFFFF80000000) | (m.s[(i+1)%312] & 0x7FFFFFFF)
			y := x >> 1
			if x&1 != 0 {
				y ^= 0xB5026F5AA96619E9
			}
			m.s[i] = m.s[(i+156)%312] ^ y
		}
		m.i = 0
	}
	x := m.s[m.i]
	m.i++
	x ^= (x >> 29) & 0x5555555555555555
	x ^= (x << 17) & 0x71D67FFFEDA60000
	x ^= (x << 37) & 0xFFF7EEE000000000
	x ^= x >> 43
	return x
}

func threadCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// perOp runs f in batches until min seconds of CPU time; the CPU time a call, in ns.
func perOp(f func(), min float64) float64 {
	n := 1
	for {
		start := threadCPU()
		for i := 0; i < n; i++ {
			f()
		}
		t := threadCPU() - start
		if t >= min {
			return t / float64(n) * 1e9
		}
		if t < min/100 {
			n *= 10
		} else {
			n = int(float64(n)*min/t*1.1) + 1
		}
	}
}

type bench struct {
	name  string
	block []byte
	run   func()
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func ints(name, kind string, v []int64, enc func([]int64, []byte) ([]byte, error),
	dec func([]byte, []int64) ([]int64, error)) []bench {
	scratch := make([]int64, len(v))
	var buf []byte
	block, err := enc(append([]int64(nil), v...), nil)
	must(err)
	dst := make([]int64, 0, len(v))
	return []bench{
		// The encoders delta-encode their input in place: each call starts from a copy,
		// whose cost the EncodeCopy case measures alone.
		{"BM_Tsm" + kind + "Encode_Block_" + name, block, func() {
			copy(scratch, v)
			buf, err = enc(scratch, buf[:0])
		}},
		{"BM_Tsm" + kind + "EncodeCopy_Block_" + name, block, func() { copy(scratch, v) }},
		{"BM_Tsm" + kind + "Decode_Block_" + name, block, func() { dst, err = dec(block, dst[:0]) }},
	}
}

func main() {
	reps := flag.Int("reps", 5, "repetitions of each case, in a shuffled order")
	min := flag.Float64("min", 0.2, "CPU seconds a repetition")
	flag.Parse()
	runtime.LockOSThread()

	const n = 1000
	rng := newMt64(0x75a1000)
	seq, packed, random := make([]int64, n), make([]int64, n), make([]int64, n)
	for i := 0; i < n; i++ {
		seq[i] = int64(i)
		packed[i] = int64(i) + int64(rng.next()%10)
		random[i] = int64(rng.next())
	}
	tpacked, seconds, trandom := make([]int64, n), make([]int64, n), make([]int64, n)
	const start = 1764547200000000000
	for i := 0; i < n; i++ {
		tpacked[i] = int64(i)*1000 + int64(rng.next()%10)
		seconds[i] = start + int64(i)*1000000000 + int64(rng.next()%1000000)
		trandom[i] = int64(rng.next() >> 1)
	}
	fseq, walk := make([]float64, n), make([]float64, n)
	x := 62.5
	for i := 0; i < n; i++ {
		fseq[i] = float64(i)
		x += float64(int(rng.next()%21)-10) / 100
		walk[i] = math.Round(x*100) / 100 // llround: halves away from zero, as math.Round
	}
	bools := make([]bool, n)
	for i := range bools {
		bools[i] = rng.next()&1 != 0
	}
	uuids := make([]string, n)
	for i := range uuids {
		// gcc evaluates snprintf's arguments last to first: the draws in that order.
		d := rng.next() & 0xFFFFFFFFFFFF
		c := 0x8000 | (rng.next() & 0x3FFF)
		b := rng.next() & 0xFFFF
		a := uint32(rng.next())
		uuids[i] = fmt.Sprintf("%08x-%04x-11ee-%04x-%012x", a, b, c, d)
	}

	var benches []bench
	benches = append(benches, ints("Seq", "Integer", seq, tsm.IntegerArrayEncodeAll, tsm.IntegerArrayDecodeAll)...)
	benches = append(benches, ints("Packed", "Integer", packed, tsm.IntegerArrayEncodeAll, tsm.IntegerArrayDecodeAll)...)
	benches = append(benches, ints("Random", "Integer", random, tsm.IntegerArrayEncodeAll, tsm.IntegerArrayDecodeAll)...)
	benches = append(benches, ints("Seq", "Time", seq, tsm.TimeArrayEncodeAll, tsm.TimeArrayDecodeAll)...)
	benches = append(benches, ints("Packed", "Time", tpacked, tsm.TimeArrayEncodeAll, tsm.TimeArrayDecodeAll)...)
	benches = append(benches, ints("Seconds", "Time", seconds, tsm.TimeArrayEncodeAll, tsm.TimeArrayDecodeAll)...)
	benches = append(benches, ints("Random", "Time", trandom, tsm.TimeArrayEncodeAll, tsm.TimeArrayDecodeAll)...)
	for _, f := range []struct {
		name string
		v    []float64
	}{{"Seq", fseq}, {"Walk", walk}} {
		v := f.v
		block, err := tsm.FloatArrayEncodeAll(v, nil)
		must(err)
		var buf []byte
		dst := make([]float64, 0, n)
		benches = append(benches,
			bench{"BM_TsmFloatEncode_Block_" + f.name, block, func() { buf, _ = tsm.FloatArrayEncodeAll(v, buf[:0]) }},
			bench{"BM_TsmFloatDecode_Block_" + f.name, block, func() { dst, _ = tsm.FloatArrayDecodeAll(block, dst[:0]) }})
	}
	{
		block, err := tsm.BooleanArrayEncodeAll(bools, nil)
		must(err)
		var buf []byte
		dst := make([]bool, 0, n)
		benches = append(benches,
			bench{"BM_TsmBooleanEncode_Block_Random", block, func() { buf, _ = tsm.BooleanArrayEncodeAll(bools, buf[:0]) }},
			bench{"BM_TsmBooleanDecode_Block_Random", block, func() { dst, _ = tsm.BooleanArrayDecodeAll(block, dst[:0]) }})
	}
	{
		block, err := tsm.StringArrayEncodeAll(uuids, nil)
		must(err)
		var buf []byte
		dst := make([]string, 0, n)
		benches = append(benches,
			bench{"BM_TsmStringEncode_Block_Uuid", block, func() { buf, _ = tsm.StringArrayEncodeAll(uuids, buf[:0]) }},
			bench{"BM_TsmStringDecode_Block_Uuid", block, func() { dst, _ = tsm.StringArrayDecodeAll(block, dst[:0]) }})
	}

	order := make([]int, 0, len(benches)**reps)
	for r := 0; r < *reps; r++ {
		for i := range benches {
			order = append(order, i)
		}
	}
	rand.New(rand.NewSource(1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	times := make([][]float64, len(benches))
	for _, i := range order {
		times[i] = append(times[i], perOp(benches[i].run, *min))
	}
	for i, b := range benches {
		t := append([]float64(nil), times[i]...)
		sort.Float64s(t)
		h := fnv.New64a()
		h.Write(b.block)
		fmt.Printf("%s median_ns=%.1f min_ns=%.1f max_ns=%.1f bytes=%d fnv=%016x\n", b.name,
			t[len(t)/2], t[0], t[len(t)-1], len(b.block), h.Sum64())
	}
}
