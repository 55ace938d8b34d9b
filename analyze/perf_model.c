/*
 * The perf model of PyTorch ops (docs/metrics.md, "Op performance model"): FLOPs, bytes moved
 * and the dtype of one call of an aten op from its record_shapes args, read by the bounded
 * parser of perf_args.c (Kineto's compact JSON or Python's repr; anything else is "unreadable
 * shapes"). All arithmetic is overflow-checked; sizes beyond TKA_PM_MAX_ELEMS elements per
 * tensor are refused as absurd.
 */
#include "perf_model.h"
#include "checked.h"
#include "perf_args.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- one call ---- */

struct call {
	struct tka_pm_shapes sh, st; /* dims, strides (st.n = 0 when absent or unreadable) */
	const struct tka_pm_dtype *ty[TKA_PM_MAX_ARGS];
	char conc[TKA_PM_MAX_ARGS][TKA_PM_STR_LEN];
	int nconc;   /* 0 when there are no Concrete Inputs */
	int inplace; /* the name ends in '_': the result is written over arg 0 */
};

/* 1 when arg @i is a tensor: a shape and a dtype. */
static int tensor(const struct call *c, int i)
{
	return i >= 0 && i < c->sh.n && c->sh.nd[i] >= 0 && c->ty[i];
}

/* Elements of tensor @i (*@e); -1 when beyond the limit. */
static int elems(const struct call *c, int i, int64_t *e)
{
	int64_t n = 1;
	for (int k = 0; k < c->sh.nd[i]; k++)
		if (tk_mul_ovf(n, c->sh.d[i][k], &n) || n > TKA_PM_MAX_ELEMS)
			return -1;
	*e = n;
	return 0;
}

/* Bytes read of tensor @i: its elements, without the dimensions of stride 0 (an expanded view
 * reads its data once), times its element size. 0 for a non-tensor. */
static int read_bytes(const struct call *c, int i, int64_t *b)
{
	int64_t n = 1;
	*b = 0;
	if (!tensor(c, i))
		return 0;
	int strided = i < c->st.n && c->st.nd[i] == c->sh.nd[i];
	for (int k = 0; k < c->sh.nd[i]; k++)
		if (!(strided && c->st.d[i][k] == 0) &&
		    (tk_mul_ovf(n, c->sh.d[i][k], &n) || n > TKA_PM_MAX_ELEMS))
			return -1;
	*b = n * c->ty[i]->size;
	return 0;
}

/* The Concrete Inputs value of arg @i, NULL when not recorded (absent, empty or too long). */
static const char *conc(const struct call *c, int i)
{
	return i >= 0 && i < c->nconc && c->conc[i][0] ? c->conc[i] : NULL;
}

/* *@acc += @a * @b * @m (checked). */
static int mac(int64_t *acc, int64_t a, int64_t b, int64_t m)
{
	int64_t x;
	return tk_mul_ovf(a, b, &x) || tk_mul_ovf(x, m, &x) || tk_add_ovf(*acc, x, acc);
}

/* The product of @n values (checked); -1 on overflow. */
static int64_t prod(const int64_t *v, int n)
{
	int64_t p = 1;
	for (int i = 0; i < n; i++)
		if (tk_mul_ovf(p, v[i], &p))
			return -1;
	return p;
}

static enum tka_pm_status refuse(struct tka_pm *o, const char *reason)
{
	o->status = TKA_PM_REFUSED;
	o->reason = reason;
	o->flops = o->bytes = 0;
	return o->status;
}

static const char *const TOO_BIG = "sizes out of range";
static const char *const MISMATCH = "shapes do not match the op";

/* Sum of the read bytes of every tensor arg, except @skip (-1: none). */
static int inputs_read(const struct call *c, int skip, int64_t *sum)
{
	*sum = 0;
	for (int i = 0; i < c->sh.n; i++) {
		int64_t b;
		if (i == skip)
			continue;
		if (read_bytes(c, i, &b) || tk_add_ovf(*sum, b, sum))
			return -1;
	}
	return 0;
}

/* Finish a model: bytes = the inputs read + @out_elems elements of @out_size bytes written. */
static enum tka_pm_status done(const struct call *c, struct tka_pm *o, int64_t flops,
			       int64_t out_elems, int out_size, int skip)
{
	int64_t in, b;
	if (inputs_read(c, skip, &in) || tk_mul_ovf(out_elems, out_size, &b) ||
	    tk_add_ovf(in, b, &b) || flops < 0)
		return refuse(o, TOO_BIG);
	o->status = TKA_PM_OK;
	o->flops = flops;
	o->bytes = b;
	return TKA_PM_OK;
}

/* ---- GEMMs ---- */

enum gemm_kind { G_MM, G_ADDMM, G_BMM, G_BADDBMM, G_MATMUL, G_LINEAR, G_SCALED_MM, G_MV, G_DOT };

/* The most args each GEMM kind has: its schema's, and one more for the out= variant. Kineto
 * sometimes records the inputs of earlier calls too (TorchScript traces): such args are refused. */
static const int gemm_max_args[] = {3, 6, 3, 6, 3, 4, 10, 3, 3};

static enum tka_pm_status gemm(const struct call *c, int kind, struct tka_pm *o)
{
	int a = kind == G_ADDMM || kind == G_BADDBMM, b = a + 1; /* the two operands */
	int64_t M = 1, N = 1, K, batch = 1, flops = 0;
	if (c->sh.n > gemm_max_args[kind])
		return refuse(o, "more args than the op has");
	if (!tensor(c, a) || !tensor(c, b))
		return refuse(o, "operand shapes not recorded");
	const int64_t *x = c->sh.d[a], *y = c->sh.d[b];
	int nx = c->sh.nd[a], ny = c->sh.nd[b];
	o->dtype = c->ty[a]->name;
	switch (kind) {
	case G_MM:
	case G_ADDMM:
	case G_SCALED_MM:
		if (nx != 2 || ny != 2 || x[1] != y[0])
			return refuse(o, MISMATCH);
		M = x[0], K = x[1], N = y[1];
		break;
	case G_BMM:
	case G_BADDBMM:
		if (nx != 3 || ny != 3 || x[0] != y[0] || x[2] != y[1])
			return refuse(o, MISMATCH);
		batch = x[0], M = x[1], K = x[2], N = y[2];
		break;
	case G_MV:
		if (nx != 2 || ny != 1 || x[1] != y[0])
			return refuse(o, MISMATCH);
		M = x[0], K = x[1];
		break;
	case G_DOT:
		if (nx != 1 || ny != 1 || x[0] != y[0])
			return refuse(o, MISMATCH);
		K = x[0];
		break;
	case G_LINEAR: /* x [..., K] by weight [N, K] (or [K]) */
		if (nx < 1 || ny < 1 || ny > 2 || x[nx - 1] != y[ny - 1])
			return refuse(o, MISMATCH);
		K = x[nx - 1], N = ny == 2 ? y[0] : 1;
		if ((M = prod(x, nx - 1)) < 0)
			return refuse(o, TOO_BIG);
		break;
	default: { /* matmul: 1-D operands get a 1 prepended (x) or appended (y); batch dims
		      broadcast */
		if (nx < 1 || ny < 1)
			return refuse(o, MISMATCH);
		K = x[nx - 1];
		M = nx > 1 ? x[nx - 2] : 1;
		N = ny > 1 ? y[ny - 1] : 1;
		if ((ny > 1 ? y[ny - 2] : y[0]) != K)
			return refuse(o, MISMATCH);
		int bx = nx > 2 ? nx - 2 : 0, by = ny > 2 ? ny - 2 : 0;
		for (int i = 0; i < (bx > by ? bx : by); i++) { /* from the right */
			int64_t u = i < bx ? x[bx - 1 - i] : 1, v = i < by ? y[by - 1 - i] : 1;
			if (u != v && u != 1 && v != 1)
				return refuse(o, MISMATCH);
			if (tk_mul_ovf(batch, u == 1 ? v : u, &batch))
				return refuse(o, TOO_BIG);
		}
	}
	}
	int64_t out;
	if (tk_mul_ovf(batch, M, &out) || tk_mul_ovf(out, N, &out) || out > TKA_PM_MAX_ELEMS ||
	    mac(&flops, 2 * out, K, 1))
		return refuse(o, TOO_BIG);
	int bias = kind == G_ADDMM || kind == G_BADDBMM || (kind == G_LINEAR && tensor(c, 2)) ||
		   (kind == G_SCALED_MM && tensor(c, 4));
	if (bias && tk_add_ovf(flops, out, &flops)) /* the bias add: one per output element */
		return refuse(o, TOO_BIG);
	if (kind == G_SCALED_MM) { /* out_dtype is not recorded: bf16, its usual value */
		o->note = "output counted as 2 bytes per element";
		return done(c, o, flops, out, 2, -1);
	}
	return done(c, o, flops, out, c->ty[a]->size, -1);
}

/* ---- convolutions ---- */

/* Where the parameters of a convolution op are (arg indexes, -1 when it has none). */
struct conv_layout {
	signed char bias, stride, pad, dil, transposed, outpad, groups, tf32;
	signed char fixed_transposed; /* -1: read arg transposed; else 0 or 1 */
};

/* An int list parameter of @s spatial dims (one value for all allowed) into @v; -1 unknown. */
static int spatial_param(const struct call *c, int i, int s, int64_t *v)
{
	int64_t t[TKA_PM_MAX_DIMS];
	const char *x = conc(c, i);
	int n = x ? tka_pm_parse_ints(x, t, TKA_PM_MAX_DIMS) : -1;
	if (n != 1 && n != s)
		return -1;
	for (int k = 0; k < s; k++)
		v[k] = t[n == 1 ? 0 : k];
	return 0;
}

/* The output size of one spatial dim (PyTorch's Conv/ConvTranspose docs); -1 when the
 * parameters are out of range or give no output. */
static int64_t conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil,
			int64_t opad, int tr, int same)
{
	const int64_t cap = (int64_t)1 << 24; /* strides, paddings, dilations beyond are absurd */
	int64_t span, r;
	if (stride < 1 || dil < 1 || pad < 0 || opad < 0 || stride > cap || dil > cap ||
	    pad > cap || opad > cap || k < 1 || k > cap)
		return -1;
	span = dil * (k - 1); /* < 2^48 */
	if (same)
		return in;
	if (!tr)
		return in + 2 * pad - span - 1 < 0 ? -1 : (in + 2 * pad - span - 1) / stride + 1;
	if (in < 1 || tk_mul_ovf(in - 1, stride, &r))
		return -1;
	r = r - 2 * pad + span + opad + 1; /* |terms| < 2^62 */
	return r > TKA_PM_MAX_ELEMS ? -1 : r;
}

static enum tka_pm_status conv(const struct call *c, const struct conv_layout *L, struct tka_pm *o)
{
	if (!tensor(c, 0) || !tensor(c, 1))
		return refuse(o, "input or weight shape not recorded");
	const int64_t *in = c->sh.d[0], *w = c->sh.d[1];
	int ni = c->sh.nd[0], nw = c->sh.nd[1], s = nw - 2, batched = ni == nw;
	o->dtype = c->ty[0]->name;
	if (s < 1 || s > 3 || (ni != nw && ni != nw - 1))
		return refuse(o, MISMATCH);
	const int64_t N = batched ? in[0] : 1, C = in[batched], *sp = in + batched + 1;
	int tr = L->fixed_transposed;
	if (tr < 0 &&
	    (tr = conc(c, L->transposed) ? tka_pm_parse_bool(conc(c, L->transposed)) : -1) < 0)
		return refuse(o, "convolution parameters not recorded");
	int64_t stride[3], pad[3], dil[3], opad[3] = {0, 0, 0}, groups = -1, out[3];
	const char *p = conc(c, L->pad);
	int same = p && !strcmp(p, "same"), valid = p && !strcmp(p, "valid");
	if (valid || same)
		pad[0] = pad[1] = pad[2] = 0;
	if (spatial_param(c, L->stride, s, stride) || spatial_param(c, L->dil, s, dil) ||
	    (!same && !valid && spatial_param(c, L->pad, s, pad)) ||
	    (tr && spatial_param(c, L->outpad, s, opad)))
		return refuse(o, "convolution parameters not recorded");
	if (conc(c, L->groups) && tka_pm_parse_ints(conc(c, L->groups), &groups, 1) != 1)
		groups = -1;
	if (!tr && groups < 0 && w[1] > 0 && C % w[1] == 0)
		groups = C / w[1]; /* weight [C_out, C_in / groups, k...] */
	if (groups < 1)
		return refuse(o, "convolution parameters not recorded");
	if ((!tr && C != groups * w[1]) || (tr && C != w[0]))
		return refuse(o, MISMATCH);
	for (int k = 0; k < s; k++)
		if ((out[k] = conv_out(sp[k], w[k + 2], stride[k], pad[k], dil[k], opad[k], tr,
				       same)) < 1)
			return refuse(o, MISMATCH);
	/* each output element of a group: C_in/groups x kernel multiply-adds (transposed: each
	 * input element scatters into C_out/groups x kernel outputs) */
	int64_t kern = prod(w + 2, s), osp = prod(out, s), flops = 0, cout, oel, iel;
	if (kern < 0 || osp < 0 || elems(c, 0, &iel) ||
	    tk_mul_ovf(tr ? w[1] : w[0], tr ? groups : 1, &cout) || tk_mul_ovf(N, cout, &oel) ||
	    tk_mul_ovf(oel, osp, &oel) || oel > TKA_PM_MAX_ELEMS)
		return refuse(o, TOO_BIG);
	if (mac(&flops, 2 * (tr ? iel : oel), w[1], kern))
		return refuse(o, TOO_BIG);
	if (tensor(c, L->bias) && tk_add_ovf(flops, oel, &flops))
		return refuse(o, TOO_BIG);
	if (!strcmp(o->dtype, "fp32") && conc(c, L->tf32) &&
	    tka_pm_parse_bool(conc(c, L->tf32)) == 1)
		o->dtype = "tf32";
	return done(c, o, flops, oel, c->ty[0]->size, -1);
}

/* Backward convolutions: where grad_output, input, weight and the output mask are. */
struct convbw_layout {
	signed char go, in, w, transposed, mask, tf32;
	signed char fixed_transposed; /* -1: read arg transposed; else 0 or 1 */
	signed char part;	      /* 0 both grads, 1 grad input only, 2 grad weight only */
};

static enum tka_pm_status conv_bw(const struct call *c, const struct convbw_layout *L,
				  struct tka_pm *o)
{
	int64_t wd[2 + 3], ws[TKA_PM_MAX_DIMS];
	const int64_t *w;
	int nw;
	if (L->part == 2) { /* the weight's size is an int list arg */
		const char *x = conc(c, L->w);
		if (!x || (nw = tka_pm_parse_ints(x, ws, TKA_PM_MAX_DIMS)) < 3)
			return refuse(o, "kernel size not recorded");
		w = ws;
	} else {
		if (!tensor(c, L->w))
			return refuse(o, "weight shape not recorded");
		w = c->sh.d[L->w], nw = c->sh.nd[L->w];
	}
	int tr = L->fixed_transposed;
	if (!tensor(c, L->go) || (L->part != 1 && !tensor(c, L->in)))
		return refuse(o, "operand shapes not recorded");
	if (tr < 0 &&
	    (tr = conc(c, L->transposed) ? tka_pm_parse_bool(conc(c, L->transposed)) : -1) < 0)
		return refuse(o, "convolution parameters not recorded");
	o->dtype = c->ty[L->go]->name;
	int s = nw - 2;
	if (s < 1 || s > 3 || c->sh.nd[L->go] != nw || (L->part != 1 && c->sh.nd[L->in] != nw))
		return refuse(o, MISMATCH);
	for (int k = 0; k < nw && k < 5; k++)
		wd[k] = w[k] < 0 ? 0 : w[k];
	/* the forward's work: 2 x N x w[0] x w[1] x kernel x the spatial size of the output
	 * (grad_output; transposed: of the input, where the forward reads) */
	const int64_t *a = c->sh.d[tr ? L->in : L->go];
	int64_t kern = prod(wd + 2, s), sp = prod(a + 2, s), f = 0;
	if (kern < 0 || sp < 0 || mac(&f, 2 * a[0], sp, 1) || tk_mul_ovf(f, wd[0], &f) ||
	    tk_mul_ovf(f, wd[1], &f) || tk_mul_ovf(f, kern, &f))
		return refuse(o, TOO_BIG);
	int gi = L->part != 2, gw = L->part != 1;
	if (L->part == 0) {
		/* output_mask "[True, True, False]": its words' initials (True, False) in order */
		const char *mk = conc(c, L->mask);
		int m[2], nm = 0;
		for (const char *q = mk ? mk : ""; *q && nm < 2; q++)
			if (*q == 'T' || *q == 'F')
				m[nm++] = *q == 'T';
		if (nm == 2)
			gi = m[0], gw = m[1];
		else
			o->note = "output mask not recorded: both gradients counted";
	}
	int64_t flops, out = 0, e;
	if (tk_mul_ovf(f, gi + gw, &flops))
		return refuse(o, TOO_BIG);
	if (gi && L->part != 1) { /* grad input: the input's size */
		if (elems(c, L->in, &e) || tk_add_ovf(out, e, &out))
			return refuse(o, TOO_BIG);
	} else if (gi) {
		int64_t sz[TKA_PM_MAX_DIMS];
		const char *q = conc(c, L->in);
		int n = q ? tka_pm_parse_ints(q, sz, TKA_PM_MAX_DIMS) : -1;
		if (n == nw && (e = prod(sz, n)) >= 0 && e <= TKA_PM_MAX_ELEMS)
			out += e;
		else
			o->note = "grad input size not recorded: not counted";
	}
	if (gw && ((e = prod(wd, nw < 5 ? nw : 5)) < 0 || tk_add_ovf(out, e, &out)))
		return refuse(o, TOO_BIG);
	if (!strcmp(o->dtype, "fp32") && conc(c, L->tf32) &&
	    tka_pm_parse_bool(conc(c, L->tf32)) == 1)
		o->dtype = "tf32";
	return done(c, o, flops, out, c->ty[L->go]->size, -1);
}

/* ---- attention ---- */

struct attn_layout {
	signed char q, k, v;
	signed char causal;    /* arg of is_causal (bool), or of custom_mask_type when mask_type */
	signed char mask_type; /* 1: custom_mask_type (0 none, 1 top-left, 2 bottom-right causal) */
	signed char blhd;      /* 1: [B, L, H, D] (the flash/efficient kernels); 0: [..., L, D] */
	signed char varlen;    /* the cumulative sequence lengths arg, -1 none */
	signed char backward;
};

/* Query-key pairs a causal mask keeps: top-left (row i sees keys 0..i) or bottom-right (row i
 * sees keys 0..i + Lk - Lq); -1 on overflow. */
static int64_t causal_pairs(int64_t lq, int64_t lk, int bottom_right)
{
	int64_t r, x;
	if (bottom_right && lk < lq)
		lq = lk; /* rows before lq - lk see nothing; the rest see 1..lk */
	else if (bottom_right) {
		if (tk_mul_ovf(lq, lq + 1, &r) || tk_mul_ovf(lq, lk - lq, &x) ||
		    tk_add_ovf(r / 2, x, &r))
			return -1;
		return r;
	}
	if (lq <= lk)
		return tk_mul_ovf(lq, lq + 1, &r) ? -1 : r / 2;
	if (tk_mul_ovf(lk, lk + 1, &r) || tk_mul_ovf(lq - lk, lk, &x) || tk_add_ovf(r / 2, x, &r))
		return -1;
	return r;
}

static enum tka_pm_status attention(const struct call *c, const struct attn_layout *L,
				    struct tka_pm *o)
{
	if (!tensor(c, L->q) || !tensor(c, L->k) || !tensor(c, L->v))
		return refuse(o, "query, key or value shape not recorded");
	if (L->varlen >= 0 && tensor(c, L->varlen) && c->sh.nd[L->varlen] > 0)
		return refuse(o, "variable-length batch: sequence lengths not recorded");
	const int64_t *q = c->sh.d[L->q], *k = c->sh.d[L->k], *v = c->sh.d[L->v];
	int nq = c->sh.nd[L->q], nk = c->sh.nd[L->k], nv = c->sh.nd[L->v];
	int64_t bh, lq, lk, d, dv;
	o->dtype = c->ty[L->q]->name;
	if (L->blhd) {
		if (nq != 4 || nk != 4 || nv != 4 || q[0] != k[0] || q[3] != k[3] || k[1] != v[1])
			return refuse(o, MISMATCH);
		if (tk_mul_ovf(q[0], q[2], &bh) || bh > TKA_PM_MAX_ELEMS)
			return refuse(o, TOO_BIG);
		lq = q[1], lk = k[1], d = q[3], dv = v[3];
	} else {
		if (nq < 2 || nk != nq || nv != nq || q[nq - 1] != k[nk - 1] ||
		    k[nk - 2] != v[nv - 2])
			return refuse(o, MISMATCH);
		if ((bh = prod(q, nq - 2)) < 0)
			return refuse(o, TOO_BIG);
		lq = q[nq - 2], lk = k[nk - 2], d = q[nq - 1], dv = v[nv - 1];
	}
	int64_t pairs, mode = -1; /* 0 none, 1 top-left, 2 bottom-right */
	const char *cv = conc(c, L->causal);
	if (cv && L->mask_type) {
		int64_t t;
		mode = tka_pm_parse_ints(cv, &t, 1) == 1 && t >= 0 && t <= 2 ? t : -1;
	} else if (cv)
		mode = tka_pm_parse_bool(cv);
	if (mode < 0)
		o->note = "causal flag not recorded: counted without a mask (an upper bound)";
	if (mode > 0)
		pairs = causal_pairs(lq, lk, mode == 2);
	else if (tk_mul_ovf(lq, lk, &pairs))
		pairs = -1;
	/* two GEMMs (Q K^T, P V): 2 x pairs x (d + dv) per head; backward 2.5x (five GEMMs) */
	int64_t flops = 0, out;
	if (pairs < 0 || mac(&flops, bh, pairs, (L->backward ? 5 : 2) * (d + dv)))
		return refuse(o, TOO_BIG);
	if (L->backward) { /* writes grad q, k, v */
		int64_t a, b, e;
		if (elems(c, L->q, &a) || elems(c, L->k, &b) || elems(c, L->v, &e) ||
		    tk_add_ovf(a, b, &out) || tk_add_ovf(out, e, &out))
			return refuse(o, TOO_BIG);
	} else if (tk_mul_ovf(bh, lq, &out) || tk_mul_ovf(out, dv, &out)) {
		return refuse(o, TOO_BIG);
	}
	return done(c, o, flops, out, c->ty[L->q]->size, -1);
}

/* ---- elementwise, reductions, normalizations ---- */

enum { EW_CMP = 1, EW_WRITE_ONLY = 2 }; /* bool result; arg 0 is written, not read */

static enum tka_pm_status elementwise(const struct call *c, int per_elem, int flags,
				      struct tka_pm *o)
{
	int64_t shape[TKA_PM_MAX_DIMS], out;
	int nd = 0, size = 1, any = 0;
	for (int i = 0; i < c->sh.n; i++) { /* the result's shape: the inputs broadcast */
		if (!tensor(c, i) || (c->inplace && i > 0))
			continue;
		if (!any)
			o->dtype = c->ty[i]->name;
		any = 1;
		int n = c->sh.nd[i];
		if (c->ty[i]->size > size)
			size = c->ty[i]->size;
		for (int k = 0; k < n; k++) { /* aligned from the right */
			int64_t x = c->sh.d[i][n - 1 - k];
			if (k >= nd)
				shape[k] = x, nd = k + 1;
			else if (shape[k] == 1)
				shape[k] = x;
			else if (x != 1 && x != shape[k])
				return refuse(o, MISMATCH);
		}
	}
	if (!any)
		return refuse(o, "no tensor shapes recorded");
	if ((out = prod(shape, nd)) < 0 || out > TKA_PM_MAX_ELEMS)
		return refuse(o, TOO_BIG);
	if (c->inplace && tensor(c, 0))
		size = c->ty[0]->size;
	return done(c, o, out * per_elem, out, flags & EW_CMP ? 1 : size,
		    flags & EW_WRITE_ONLY ? 0 : -1);
}

static enum tka_pm_status reduction(const struct call *c, int dim_arg, struct tka_pm *o)
{
	int64_t n, dims[TKA_PM_MAX_DIMS], out = 1;
	if (!tensor(c, 0))
		return refuse(o, "input shape not recorded");
	if (elems(c, 0, &n))
		return refuse(o, TOO_BIG);
	o->dtype = c->ty[0]->name;
	int nd = c->sh.nd[0], nr;
	const char *x = conc(c, dim_arg);
	if (c->sh.n <= dim_arg || (x && !strcmp(x, "None")))
		nr = 0; /* no dim: the whole tensor */
	else if (!x || (nr = tka_pm_parse_ints(x, dims, TKA_PM_MAX_DIMS)) < 0) {
		o->note = "reduced dims not recorded: output not counted";
		return done(c, o, n, 0, 1, -1);
	}
	if (nr > 0) { /* the output keeps the dims not reduced (keepdim only adds 1s) */
		for (int k = 0; k < nd; k++) {
			int kept = 1;
			for (int j = 0; j < nr; j++)
				kept &= dims[j] != k && dims[j] + nd != k;
			out *= kept ? c->sh.d[0][k] : 1; /* <= n: no overflow */
		}
	}
	return done(c, o, n, out, c->ty[0]->size, -1);
}

static enum tka_pm_status normalization(const struct call *c, int per_elem, int w, int b,
					struct tka_pm *o)
{
	int64_t n;
	if (!tensor(c, 0))
		return refuse(o, "input shape not recorded");
	if (elems(c, 0, &n))
		return refuse(o, TOO_BIG);
	o->dtype = c->ty[0]->name;
	per_elem += tensor(c, w) + tensor(c, b); /* the affine scale and shift */
	return done(c, o, n * per_elem, n, c->ty[0]->size, -1);
}

/* ---- the op table ---- */

enum handler { H_GEMM, H_CONV, H_CONV_BW, H_ATTN, H_EW, H_RED, H_NORM, H_INDUCTOR };

/*
 * A PyTorch Inductor kernel called as a host op (torch.compile: triton_poi_* pointwise,
 * triton_red_* / triton_per_* reductions): its arguments are the pointers it reads and writes
 * (in_ptr*, out_ptr*, in_out_ptr*), so the bytes are every tensor argument once (a lower bound);
 * the FLOPs of the fused ops are not known from the trace and are not counted (0).
 */
static enum tka_pm_status inductor(const struct call *c, struct tka_pm *o)
{
	for (int i = 0; i < c->sh.n && !o->dtype; i++)
		if (tensor(c, i))
			o->dtype = c->ty[i]->name;
	if (!o->dtype)
		return refuse(o, "no tensor shapes recorded");
	o->note = "Inductor kernel: every tensor argument once; its FLOPs not counted";
	return done(c, o, 0, 0, 0, -1);
}

struct op {
	const char *name;
	signed char handler;
	signed char a, b, c; /* handler's parameters (GEMM kind; flops per element, flags; ...) */
	const void *layout;
};

#define NOC -1
static const struct conv_layout L_convolution = {2, 3, 4, 5, 6, 7, 8, 12, -1};
static const struct conv_layout L_convnd = {2, 3, 4, 5, NOC, NOC, 6, NOC, 0};
static const struct conv_layout L_conv_tnd = {2, 3, 4, 7, NOC, 5, 6, NOC, 1};
static const struct conv_layout L_cudnn = {NOC, 3, 2, 4, NOC, NOC, 5, 8, 0};
static const struct conv_layout L_cudnn_t = {NOC, 4, 2, 5, NOC, 3, 6, 9, 1};
static const struct conv_layout L_miopen = {2, 4, 3, 5, NOC, NOC, 6, NOC, 0};
static const struct convbw_layout B_convolution = {0, 1, 2, 7, 10, NOC, -1, 0};
static const struct convbw_layout B_cudnn = {1, 0, 2, NOC, 10, 9, 0, 0};
static const struct convbw_layout B_cudnn_t = {1, 0, 2, NOC, 11, 10, 1, 0};
static const struct convbw_layout B_cudnn_input = {1, 0, 2, NOC, NOC, 9, 0, 1};
static const struct convbw_layout B_cudnn_weight = {1, 2, 0, NOC, NOC, 9, 0, 2};
static const struct attn_layout A_sdpa = {0, 1, 2, 5, 0, 0, NOC, 0};
static const struct attn_layout A_sdpa_flash = {0, 1, 2, 4, 0, 0, NOC, 0};
static const struct attn_layout A_sdpa_eff = {0, 1, 2, 6, 0, 0, NOC, 0};
static const struct attn_layout A_flash_fwd = {0, 1, 2, 8, 0, 1, 3, 0};
static const struct attn_layout A_eff_fwd = {0, 1, 2, 9, 1, 1, 4, 0};
static const struct attn_layout A_sdpa_bw = {1, 2, 3, 11, 0, 0, NOC, 1};
static const struct attn_layout A_flash_bw = {1, 2, 3, 11, 0, 1, 6, 1};
static const struct attn_layout A_eff_bw = {1, 2, 3, 14, 1, 1, 6, 1};

#define EW(n, f, fl)                                 \
	{"aten::" n, H_EW, f, fl, 0, NULL},          \
	{                                            \
		"aten::" n "_", H_EW, f, fl, 0, NULL \
	}
#define RED(n, d)                                \
	{                                        \
		"aten::" n, H_RED, d, 0, 0, NULL \
	}

static const struct op ops[] = {
    {"aten::mm", H_GEMM, G_MM, 0, 0, NULL},
    {"aten::addmm", H_GEMM, G_ADDMM, 0, 0, NULL},
    {"aten::bmm", H_GEMM, G_BMM, 0, 0, NULL},
    {"aten::baddbmm", H_GEMM, G_BADDBMM, 0, 0, NULL},
    {"aten::matmul", H_GEMM, G_MATMUL, 0, 0, NULL},
    {"aten::linear", H_GEMM, G_LINEAR, 0, 0, NULL},
    {"aten::_scaled_mm", H_GEMM, G_SCALED_MM, 0, 0, NULL},
    {"aten::mv", H_GEMM, G_MV, 0, 0, NULL},
    {"aten::dot", H_GEMM, G_DOT, 0, 0, NULL},
    {"aten::convolution", H_CONV, 0, 0, 0, &L_convolution},
    {"aten::_convolution", H_CONV, 0, 0, 0, &L_convolution},
    {"aten::conv1d", H_CONV, 0, 0, 0, &L_convnd},
    {"aten::conv2d", H_CONV, 0, 0, 0, &L_convnd},
    {"aten::conv3d", H_CONV, 0, 0, 0, &L_convnd},
    {"aten::conv_transpose1d", H_CONV, 0, 0, 0, &L_conv_tnd},
    {"aten::conv_transpose2d", H_CONV, 0, 0, 0, &L_conv_tnd},
    {"aten::conv_transpose3d", H_CONV, 0, 0, 0, &L_conv_tnd},
    {"aten::cudnn_convolution", H_CONV, 0, 0, 0, &L_cudnn},
    {"aten::cudnn_convolution_transpose", H_CONV, 0, 0, 0, &L_cudnn_t},
    {"aten::miopen_convolution", H_CONV, 0, 0, 0, &L_miopen},
    {"aten::mkldnn_convolution", H_CONV, 0, 0, 0, &L_miopen},
    {"aten::convolution_backward", H_CONV_BW, 0, 0, 0, &B_convolution},
    {"aten::cudnn_convolution_backward", H_CONV_BW, 0, 0, 0, &B_cudnn},
    {"aten::cudnn_convolution_transpose_backward", H_CONV_BW, 0, 0, 0, &B_cudnn_t},
    {"aten::cudnn_convolution_backward_input", H_CONV_BW, 0, 0, 0, &B_cudnn_input},
    {"aten::cudnn_convolution_backward_weight", H_CONV_BW, 0, 0, 0, &B_cudnn_weight},
    {"aten::scaled_dot_product_attention", H_ATTN, 0, 0, 0, &A_sdpa},
    {"aten::_scaled_dot_product_flash_attention", H_ATTN, 0, 0, 0, &A_sdpa_flash},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", H_ATTN, 0, 0, 0, &A_sdpa_flash},
    {"aten::_scaled_dot_product_efficient_attention", H_ATTN, 0, 0, 0, &A_sdpa_eff},
    {"aten::_scaled_dot_product_cudnn_attention", H_ATTN, 0, 0, 0, &A_sdpa_eff},
    {"aten::_flash_attention_forward", H_ATTN, 0, 0, 0, &A_flash_fwd},
    {"aten::_efficient_attention_forward", H_ATTN, 0, 0, 0, &A_eff_fwd},
    {"aten::_scaled_dot_product_flash_attention_backward", H_ATTN, 0, 0, 0, &A_sdpa_bw},
    {"aten::_scaled_dot_product_efficient_attention_backward", H_ATTN, 0, 0, 0, &A_sdpa_bw},
    {"aten::_flash_attention_backward", H_ATTN, 0, 0, 0, &A_flash_bw},
    {"aten::_efficient_attention_backward", H_ATTN, 0, 0, 0, &A_eff_bw},
    /* elementwise: flops per output element (docs/metrics.md, the table) */
    EW("add", 1, 0),
    EW("sub", 1, 0),
    EW("mul", 1, 0),
    EW("div", 1, 0),
    EW("neg", 1, 0),
    EW("abs", 1, 0),
    EW("relu", 1, 0),
    EW("clamp", 1, 0),
    EW("clamp_min", 1, 0),
    EW("clamp_max", 1, 0),
    EW("maximum", 1, 0),
    EW("minimum", 1, 0),
    EW("where", 1, 0),
    EW("pow", 1, 0),
    EW("sqrt", 1, 0),
    EW("rsqrt", 1, 0),
    EW("exp", 1, 0),
    EW("log", 1, 0),
    EW("reciprocal", 1, 0),
    EW("sigmoid", 1, 0),
    EW("tanh", 1, 0),
    EW("gelu", 1, 0),
    EW("silu", 1, 0),
    EW("hardtanh", 1, 0),
    EW("leaky_relu", 1, 0),
    EW("threshold", 1, 0),
    EW("sin", 1, 0),
    EW("cos", 1, 0),
    EW("masked_fill", 1, 0),
    EW("threshold_backward", 1, 0),
    EW("gelu_backward", 1, 0),
    EW("silu_backward", 1, 0),
    EW("sigmoid_backward", 1, 0),
    EW("tanh_backward", 1, 0),
    EW("addcmul", 2, 0),
    EW("addcdiv", 2, 0),
    EW("lerp", 2, 0),
    EW("eq", 1, EW_CMP),
    EW("ne", 1, EW_CMP),
    EW("lt", 1, EW_CMP),
    EW("le", 1, EW_CMP),
    EW("gt", 1, EW_CMP),
    EW("ge", 1, EW_CMP),
    EW("logical_not", 1, EW_CMP),
    EW("logical_and", 1, EW_CMP),
    EW("logical_or", 1, EW_CMP),
    {"aten::copy_", H_EW, 0, EW_WRITE_ONLY, 0, NULL},
    {"aten::fill_", H_EW, 0, EW_WRITE_ONLY, 0, NULL},
    {"aten::zero_", H_EW, 0, EW_WRITE_ONLY, 0, NULL},
    {"aten::clone", H_EW, 0, 0, 0, NULL},
    /* reductions: the dim arg */
    RED("sum", 1),
    RED("mean", 1),
    RED("amax", 1),
    RED("amin", 1),
    RED("prod", 1),
    RED("logsumexp", 1),
    RED("any", 1),
    RED("all", 1),
    RED("var", 1),
    RED("std", 1),
    RED("norm", 2),
    RED("linalg_vector_norm", 2),
    /* normalizations and softmax: flops per element, weight and bias args */
    {"aten::softmax", H_NORM, 5, NOC, NOC, NULL},
    {"aten::_softmax", H_NORM, 5, NOC, NOC, NULL},
    {"aten::log_softmax", H_NORM, 5, NOC, NOC, NULL},
    {"aten::_log_softmax", H_NORM, 5, NOC, NOC, NULL},
    {"aten::layer_norm", H_NORM, 5, 2, 3, NULL},
    {"aten::native_layer_norm", H_NORM, 5, 2, 3, NULL},
    {"aten::group_norm", H_NORM, 5, 2, 3, NULL},
    {"aten::native_group_norm", H_NORM, 5, 1, 2, NULL},
    {"aten::batch_norm", H_NORM, 5, 1, 2, NULL},
    {"aten::_batch_norm_impl_index", H_NORM, 5, 1, 2, NULL},
    {"aten::native_batch_norm", H_NORM, 5, 1, 2, NULL},
    {"aten::_native_batch_norm_legit", H_NORM, 5, 1, 2, NULL},
    {"aten::cudnn_batch_norm", H_NORM, 5, 1, 2, NULL},
    {"aten::miopen_batch_norm", H_NORM, 5, 1, 2, NULL},
    {"aten::rms_norm", H_NORM, 4, 2, NOC, NULL},
    {"aten::_fused_rms_norm", H_NORM, 4, 2, NOC, NULL},
};

static const char *const model_names[] = {"gemm",	 "conv",      "conv",	       "attention",
					  "elementwise", "reduction", "normalization", "inductor"};

#define N_OPS (sizeof(ops) / sizeof(ops[0]))

/* ops[] by name (then place: the first of equal names wins), made once for every thread. */
static const struct op *by_name[N_OPS];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int cmp_op_name(const void *pa, const void *pb)
{
	const struct op *a = *(const struct op *const *)pa, *b = *(const struct op *const *)pb;
	int d = strcmp(a->name, b->name);
	return d ? d : (a > b) - (a < b);
}

static void sort_by_name(void)
{
	for (size_t i = 0; i < N_OPS; i++)
		by_name[i] = &ops[i];
	qsort(by_name, N_OPS, sizeof(by_name[0]), cmp_op_name);
}

static const struct op *find(const char *name)
{
	static const struct op inductor_op = {"triton_", H_INDUCTOR, 0, 0, 0, NULL};
	if (!name)
		return NULL;
	pthread_once(&by_name_once, sort_by_name);
	size_t lo = 0, hi = N_OPS; /* the first op whose name is not below @name */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < N_OPS && !strcmp(by_name[lo]->name, name))
		return by_name[lo];
	if (!strncmp(name, "triton_poi_", 11) || !strncmp(name, "triton_red_", 11) ||
	    !strncmp(name, "triton_per_", 11))
		return &inductor_op;
	return NULL;
}

int tka_pm_has_model(const char *name)
{
	return find(name) != NULL;
}

enum tka_pm_status tka_perf_model(const char *name, const char *dims, const char *types,
				  const char *strides, const char *concrete, struct tka_pm *out)
{
	static const char unreadable[] = "unreadable shapes";
	struct call c;
	char tnames[TKA_PM_MAX_ARGS][TKA_PM_STR_LEN];
	int nt = 0;
	const struct op *op = find(name);
	memset(out, 0, sizeof(*out));
	if (!op) {
		out->status = TKA_PM_NONE;
		out->reason = "no model for this op";
		return out->status;
	}
	out->model = model_names[op->handler];
	if (!dims || !types)
		return refuse(out, "no shapes recorded (record_shapes off)");
	if (tka_pm_parse_shapes(dims, &c.sh) || tka_pm_parse_strs(types, tnames, &nt))
		return refuse(out, unreadable);
	for (int i = 0; i < c.sh.n; i++)
		c.ty[i] = i < nt ? tka_pm_dtype_of(tnames[i]) : NULL;
	if (!strides || tka_pm_parse_shapes(strides, &c.st))
		c.st.n = 0;
	if (!concrete || tka_pm_parse_strs(concrete, c.conc, &c.nconc))
		c.nconc = 0;
	size_t len = strlen(name);
	c.inplace = len && name[len - 1] == '_';
	switch (op->handler) {
	case H_GEMM:
		return gemm(&c, op->a, out);
	case H_CONV:
		return conv(&c, op->layout, out);
	case H_CONV_BW:
		return conv_bw(&c, op->layout, out);
	case H_ATTN:
		return attention(&c, op->layout, out);
	case H_EW:
		return elementwise(&c, op->a, op->b, out);
	case H_RED:
		return reduction(&c, op->a, out);
	case H_INDUCTOR:
		return inductor(&c, out);
	default:
		return normalization(&c, op->a, op->b, op->c, out);
	}
}
