// Microbenchmark (not part of the build): what one graph relaxation's PR-STM protocol costs in
// latency and throughput, by variant of its memory operations. Each thread runs a chain of
// transactions, each reading a source u and a target v (lock word, then value) and writing v,
// the next one's source the last one's target, as a warp following hops does. On the GPU
// machine: nvcc -O3 -arch=sm_90 -o /tmp/tx-chain tx-chain.cu && /tmp/tx-chain
//   V0  prstm.cuh before: load, pre-lock CAS, lock CAS, fence.sc, validation load
//   V1  one CAS from the word as read straight to locked (PrStmTx::commit's one-lock path)
//   V2  V1 with the validation as an acq_rel RMW instead of fence.sc and a load
//   V3  V2 with both lock words loaded before either value, one fence between them
//   V4  V3 with st.release for the unlock
// Results and their reading: docs/benchmark-log.md (2026-12-01, night).
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
typedef unsigned long long u64;
__device__ __forceinline__ u64 ld_acq(const u64* p){u64 v;asm volatile("ld.acquire.gpu.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ u64 ld_rlx(const u64* p){u64 v;asm volatile("ld.relaxed.gpu.global.u64 %0,[%1];":"=l"(v):"l"(p):"memory");return v;}
__device__ __forceinline__ void st_rlx(u64* p,u64 v){asm volatile("st.relaxed.gpu.global.u64 [%0],%1;"::"l"(p),"l"(v):"memory");}
__device__ __forceinline__ void st_rel(u64* p,u64 v){asm volatile("st.release.gpu.global.u64 [%0],%1;"::"l"(p),"l"(v):"memory");}
__device__ __forceinline__ u64 cas_rlx(u64* p,u64 e,u64 d){u64 o;asm volatile("atom.relaxed.gpu.global.cas.b64 %0,[%1],%2,%3;":"=l"(o):"l"(p),"l"(e),"l"(d):"memory");return o;}
__device__ __forceinline__ u64 cas_acq(u64* p,u64 e,u64 d){u64 o;asm volatile("atom.acquire.gpu.global.cas.b64 %0,[%1],%2,%3;":"=l"(o):"l"(p),"l"(e),"l"(d):"memory");return o;}
__device__ __forceinline__ u64 or_ar(u64* p){u64 o;asm volatile("atom.acq_rel.gpu.global.or.b64 %0,[%1],0;":"=l"(o):"l"(p):"memory");return o;}
__device__ __forceinline__ void f_sc(){asm volatile("fence.sc.gpu;":::"memory");}
__device__ __forceinline__ void f_ar(){asm volatile("fence.acq_rel.gpu;":::"memory");}
__device__ __forceinline__ uint32_t mix(uint32_t x){x^=x>>16;x*=0x7feb352d;x^=x>>15;x*=0x846ca68b;x^=x>>16;return x;}
// lock word: version<<32 | owner<<2 | pre(2) | locked(1)
template<int V> __device__ __forceinline__ bool tx(u64* locks,u64* vals,uint32_t u,uint32_t v,uint32_t owner){
  u64 lu,lv,xu,xv;
  if (V>=3){ lu=ld_rlx(locks+u); lv=ld_rlx(locks+v); f_ar(); xu=ld_rlx(vals+u); xv=ld_rlx(vals+v);}
  else { lu=ld_acq(locks+u); xu=ld_rlx(vals+u); lv=ld_acq(locks+v); xv=ld_rlx(vals+v);}
  if ((lu|lv)&3) return false;
  u64 cand=xu+1; (void)xv; (void)cand;
  u64 ver=lv>>32, mine_pre=(ver<<32)|((u64)owner<<2)|2, mine_lock=(ver<<32)|((u64)owner<<2)|1;
  if (V==0){ u64 w=ld_rlx(locks+v); if(w!=(ver<<32)) return false; if(cas_rlx(locks+v,w,mine_pre)!=w) return false; if(cas_rlx(locks+v,mine_pre,mine_lock)!=mine_pre) return false; }
  else if (V==1){ if(cas_rlx(locks+v,ver<<32,mine_lock)!=(ver<<32)) return false; }
  else { if(cas_acq(locks+v,ver<<32,mine_lock)!=(ver<<32)) return false; }
  bool ok;
  if (V<=1){ f_sc(); u64 w=ld_rlx(locks+u); ok=(w==lu);} else { u64 w=or_ar(locks+u); ok=(w==lu);}
  if(!ok){ st_rlx(locks+v,ver<<32); return false;}
  st_rlx(vals+v,xu+1);
  if (V>=4) st_rel(locks+v,(ver+1)<<32); else { f_ar(); st_rlx(locks+v,(ver+1)<<32);}
  return true;
}
template<int V> __global__ void chain(u64* locks,u64* vals,uint32_t n,int steps,unsigned long long* commits){
  uint32_t self=blockIdx.x*blockDim.x+threadIdx.x;
  uint32_t u=mix(self*2654435761u)%n; unsigned c=0;
  for(int i=0;i<steps;i++){ uint32_t v=mix(u+i*7919u+self)%n; if(v==u) v=(v+1)%n; if(tx<V>(locks,vals,u,v,self+1)){c++; u=v;} }
  atomicAdd(commits,(unsigned long long)c);
}
template<int V> void run(const char* name,u64* locks,u64* vals,uint32_t n,int blocks,int threads,int steps,unsigned long long* d){
  cudaMemset(d,0,8); cudaEvent_t a,b; cudaEventCreate(&a); cudaEventCreate(&b);
  chain<V><<<blocks,threads>>>(locks,vals,n,steps,d); cudaDeviceSynchronize();
  cudaMemset(d,0,8); cudaEventRecord(a); chain<V><<<blocks,threads>>>(locks,vals,n,steps,d); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms,a,b); unsigned long long c; cudaMemcpy(&c,d,8,cudaMemcpyDeviceToHost);
  double per_thread=ms*1e3/steps; printf("%-34s blocks %4d x %3d: %8.3f ms, %.3f us per tx step per thread, commits %llu (%.1f M/s)\n",name,blocks,threads,ms,per_thread,c,c/ms/1e3);
}
int main(){ uint32_t n=1u<<20; u64 *locks,*vals; unsigned long long* d; cudaMalloc(&locks,n*8); cudaMalloc(&vals,n*8); cudaMalloc(&d,8); cudaMemset(locks,0,n*8); cudaMemset(vals,0,n*8);
  int cfg[][3]={{1,1,20000},{1,32,20000},{132,256,2000},{264,256,1000}};
  for(auto& c:cfg){
    run<0>("V0 now (load,pre-lock,lock,sc)",locks,vals,n,c[0],c[1],c[2],d);
    run<1>("V1 one lock CAS, sc",locks,vals,n,c[0],c[1],c[2],d);
    run<2>("V2 one CAS, acq_rel RMW read",locks,vals,n,c[0],c[1],c[2],d);
    run<3>("V3 V2 + reads batched",locks,vals,n,c[0],c[1],c[2],d);
    run<4>("V4 V3 + st.release",locks,vals,n,c[0],c[1],c[2],d);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError())); return 0; }
