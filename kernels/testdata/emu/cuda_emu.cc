// Fiber scheduler of the CUDA emulator (see cuda_emu.h).
//
// Scheduling is adversarial: each block draws a random priority order of its
// warps, and the runnable lane of the highest-priority warp always runs
// next; a barrier is released as soon as its last participant arrives. So
// a warp runs as far ahead of the others as the barriers let it, which is
// the skew that turns a missing __syncthreads() into a wrong result (with
// the priorities redrawn every block, both orders of every pair of warps
// occur). The draws come from a fixed seed, so a run is reproducible.
#include "cuda_emu.h"

#include <algorithm>
#include <random>

dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace {

enum State { RUNNABLE, AT_SYNC, AT_SHFL, DONE };

// Context switches. glibc's swapcontext saves and restores the signal mask
// with a system call on every switch, which made the emulator spend most of
// its time in the kernel; on x86-64 a switch is instead the six callee-saved
// registers and the stack pointer (the System V ABI leaves the rest to the
// caller), in ctx_switch below. Elsewhere ucontext remains.
#if defined(__x86_64__)
extern "C" void ctx_switch(void **save, void *load);
asm(R"(
	.pushsection .text
	.globl ctx_switch
	.type ctx_switch, @function
ctx_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size ctx_switch, .-ctx_switch
	.popsection
)");

struct Ctx {
	void *sp;
};

void entry();

// ctx_make prepares c to start entry() on the stack [stack, stack + size):
// the six registers ctx_switch pops (zero), then entry's address for its
// ret, above it a null return address, 16-byte aligned as after a call.
void ctx_make(Ctx *c, char *stack, size_t size)
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
	void **sp = (void **)top;
	*--sp = nullptr;		   // entry's return address: entry never returns
	*--sp = (void *)&entry;	   // popped by ret
	for (int i = 0; i < 6; i++) // r15, r14, r13, r12, rbx, rbp
		*--sp = nullptr;
	c->sp = sp;
}

void ctx_swap(Ctx *save, Ctx *load) { ctx_switch(&save->sp, load->sp); }
#else
struct Ctx {
	ucontext_t uc;
};

void entry();

void ctx_make(Ctx *c, char *stack, size_t size)
{
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = stack;
	c->uc.uc_stack.ss_size = size;
	c->uc.uc_link = nullptr;
	makecontext(&c->uc, entry, 0);
}

void ctx_swap(Ctx *save, Ctx *load) { swapcontext(&save->uc, &load->uc); }
#endif

struct Fiber {
	Ctx ctx;
	unsigned tid;
	State state;
	unsigned shfl; // shuffles done: selects the slot buffer
	char *stack;   // never freed: fibers are reused by every launch
};

const size_t stackSize = 128 << 10;

Ctx sched;
std::vector<Fiber> fibers;
std::vector<std::vector<unsigned>> runnable; // per warp
std::vector<unsigned> prio;                  // warps, highest priority first
Fiber *cur;
const std::function<void()> *body;
std::mt19937_64 order(12345);
// Double-buffered shuffle slots: a lane can be at most one shuffle ahead of
// a partner that has not read its value yet.
double slotD[2][1024];
long long slotI[2][1024];

void entry()
{
	(*body)();
	cur->state = DONE;
	ctx_swap(&cur->ctx, &sched);
}

void yield(State s)
{
	cur->state = s;
	ctx_swap(&cur->ctx, &sched);
}

void release(unsigned t)
{
	fibers[t].state = RUNNABLE;
	runnable[t / 32].push_back(t);
}

} // namespace

void __syncthreads() { yield(AT_SYNC); }

double __shfl_xor_sync(unsigned, double v, int laneMask)
{
	const unsigned par = cur->shfl++ & 1, tid = cur->tid;
	slotD[par][tid] = v;
	yield(AT_SHFL);
	return slotD[par][(tid & ~31u) | ((tid & 31u) ^ (unsigned)laneMask)];
}

long long __shfl_xor_sync(unsigned, long long v, int laneMask)
{
	const unsigned par = cur->shfl++ & 1, tid = cur->tid;
	slotI[par][tid] = v;
	yield(AT_SHFL);
	return slotI[par][(tid & ~31u) | ((tid & 31u) ^ (unsigned)laneMask)];
}

void launch(unsigned grid, unsigned block, const std::function<void()> &fn)
{
	if (block == 0 || block > 1024 || block % 32 != 0 || grid == 0) {
		fprintf(stderr, "emu: bad launch %u x %u\n", grid, block);
		exit(2);
	}
	body = &fn;
	gridDim.x = grid;
	blockDim.x = block;
	while (fibers.size() < block) {
		fibers.emplace_back();
		fibers.back().stack = (char *)malloc(stackSize);
	}
	const unsigned warps = block / 32;
	std::vector<unsigned> warpLive(warps), warpShfl(warps);
	for (unsigned b = 0; b < grid; b++) {
		blockIdx.x = b;
		runnable.assign(warps, {});
		prio.resize(warps);
		for (unsigned w = 0; w < warps; w++)
			prio[w] = w;
		std::shuffle(prio.begin(), prio.end(), order);
		for (unsigned t = 0; t < block; t++) {
			Fiber &f = fibers[t];
			f.tid = t;
			f.shfl = 0;
			ctx_make(&f.ctx, f.stack, stackSize);
			release(t);
		}
		unsigned live = block, atSync = 0;
		for (unsigned w = 0; w < warps; w++) {
			warpLive[w] = 32;
			warpShfl[w] = 0;
		}
		while (live > 0) {
			std::vector<unsigned> *rq = nullptr;
			for (unsigned w : prio)
				if (!runnable[w].empty()) {
					rq = &runnable[w];
					break;
				}
			if (!rq) {
				fprintf(stderr, "emu: deadlock in block %u (live %u, at __syncthreads %u)\n", b, live, atSync);
				exit(2);
			}
			const size_t k = order() % rq->size();
			const unsigned t = (*rq)[k];
			(*rq)[k] = rq->back();
			rq->pop_back();
			Fiber &f = fibers[t];
			cur = &f;
			threadIdx.x = t;
			ctx_swap(&sched, &f.ctx);
			const unsigned w = t / 32;
			switch (f.state) {
			case DONE:
				live--;
				warpLive[w]--;
				if (warpShfl[w] > 0) {
					fprintf(stderr, "emu: lane %u exited while its warp waits in a shuffle\n", t);
					exit(2);
				}
				break;
			case AT_SYNC:
				atSync++;
				break;
			case AT_SHFL:
				if (++warpShfl[w] == warpLive[w]) {
					if (warpLive[w] != 32) {
						fprintf(stderr, "emu: shuffle with %u of 32 lanes live in warp %u\n", warpLive[w], w);
						exit(2);
					}
					warpShfl[w] = 0;
					for (unsigned l = 0; l < 32; l++)
						release(w * 32 + l);
				}
				break;
			default:
				break;
			}
			if (live > 0 && atSync == live) {
				atSync = 0;
				for (unsigned u = 0; u < block; u++)
					if (fibers[u].state == AT_SYNC)
						release(u);
			}
		}
	}
}
