/*
 * expr.c - kjit's expression engine: text parsed once into a tree, the
 * tree evaluated by a walker with a budget of steps and memory.
 *
 * Two dialects share the syntax (Python's expression grammar) and differ
 * in meaning: Python's (T1 specs) divides truly with /, floors // and %,
 * and has Python's builtins; kjit's own (kjit specs) truncates / and % of
 * integers as C does, also reads &&, ||, !, = and <>, and has the
 * SQL-style functions its specs were written with. Integers are int64; an
 * operation whose result does not fit continues in double, as Python's
 * unbounded integers compare and print close enough for a tuning space.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

#define MAX_TEXT 65536         /* characters of one expression */
#define MAX_NUMBER 127         /* characters of one number, underscores apart */
#define MAX_DEPTH 100          /* nesting of brackets, unary and ternary operators */
#define MAX_HEIGHT 1000        /* of the tree */
#define MAX_LOCALS 32          /* comprehension variables */
#define MAX_ARGS 16            /* arguments of one call */
#define STEP_BUDGET (1u << 25) /* nodes and items per evaluation */
#define MEM_BUDGET ((size_t)64 << 20)

/* ---- values ------------------------------------------------------------- */

enum { V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_LIST, V_RANGE };
static const char *const type_names[] = { "None", "bool", "int", "float", "str", "list",
	                                  "range" };

typedef struct val {
	int t;
	union {
		int64_t i; /* V_BOOL, V_INT */
		double d;
		struct {
			const char *s;
			size_t len;
		} str;
		struct {
			struct val *items;
			size_t n;
		} list;
		struct {
			int64_t start, step;
			uint64_t n;
		} range;
	} u;
} val;

static val v_int(int64_t i)
{
	val v = { .t = V_INT };
	v.u.i = i;
	return v;
}
static val v_bool(int b)
{
	val v = { .t = V_BOOL };
	v.u.i = b != 0;
	return v;
}
static val v_float(double d)
{
	val v = { .t = V_FLOAT };
	v.u.d = d;
	return v;
}
static int is_num(const val *v)
{
	return v->t == V_BOOL || v->t == V_INT || v->t == V_FLOAT;
}
static double as_double(const val *v)
{
	return v->t == V_FLOAT ? v->u.d : (double)v->u.i;
}

/* ---- the tree ----------------------------------------------------------- */

enum { N_CONST, N_SLOT, N_LOCAL, N_NEG, N_POS, N_INVERT, N_NOT, N_BINARY, N_AND, N_OR,
       N_COMPARE, N_IF, N_CALL, N_LIST, N_COMP, N_INDEX };
enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_BITOR, OP_BITXOR,
       OP_BITAND, OP_SHL, OP_SHR };
static const char *const op_names[] = { "+", "-", "*", "/", "//", "%", "**", "|", "^", "&",
	                                "<<", ">>" };
enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE, C_IN, C_NOTIN };

enum { F_ABS, F_MIN, F_MAX, F_POW, F_ROUND, F_INT, F_FLOAT, F_BOOL, F_STR, F_LEN, F_SUM,
       F_RANGE, F_LIST, F_SORTED, F_ANY, F_ALL, F_FLOOR, F_CEIL, F_SQRT, F_LOG, F_LN, F_LOG2,
       F_LOG10, F_EXP, F_PROD, F_GCD, F_IIF, F_COALESCE, F_IFNULL, F_NULLIF };

#define PY 1 /* offered in the Python dialect */
#define KJ 2 /* offered in kjit's */
static const struct function {
	const char *name;
	int id, min_args, max_args, dialects;
} functions[] = {
	{ "abs", F_ABS, 1, 1, PY | KJ },       { "min", F_MIN, 1, MAX_ARGS, PY | KJ },
	{ "max", F_MAX, 1, MAX_ARGS, PY | KJ }, { "pow", F_POW, 2, 2, PY | KJ },
	{ "power", F_POW, 2, 2, KJ },          { "round", F_ROUND, 1, 2, PY | KJ },
	{ "int", F_INT, 1, 1, PY },            { "float", F_FLOAT, 1, 1, PY },
	{ "bool", F_BOOL, 1, 1, PY },          { "str", F_STR, 1, 1, PY },
	{ "len", F_LEN, 1, 1, PY },            { "sum", F_SUM, 1, 2, PY },
	{ "range", F_RANGE, 1, 3, PY | KJ },   { "list", F_LIST, 1, 1, PY },
	{ "tuple", F_LIST, 1, 1, PY },         { "sorted", F_SORTED, 1, 1, PY },
	{ "any", F_ANY, 1, 1, PY },            { "all", F_ALL, 1, 1, PY },
	{ "floor", F_FLOOR, 1, 1, PY | KJ },   { "ceil", F_CEIL, 1, 1, PY | KJ },
	{ "ceiling", F_CEIL, 1, 1, KJ },       { "sqrt", F_SQRT, 1, 1, PY | KJ },
	{ "log", F_LOG, 1, 2, PY | KJ },       { "ln", F_LN, 1, 1, KJ },
	{ "log2", F_LOG2, 1, 1, PY | KJ },     { "log10", F_LOG10, 1, 1, PY | KJ },
	{ "exp", F_EXP, 1, 1, PY | KJ },       { "prod", F_PROD, 1, 1, PY },
	{ "gcd", F_GCD, 2, 2, PY },            { "iif", F_IIF, 3, 3, KJ },
	{ "coalesce", F_COALESCE, 2, MAX_ARGS, KJ }, { "ifnull", F_IFNULL, 2, 2, KJ },
	{ "nullif", F_NULLIF, 2, 2, KJ },
};
#define N_FUNCTIONS (sizeof functions / sizeof functions[0])

typedef struct clause {
	int local;            /* the variable it binds */
	struct node *iter;
	struct node **conds;
	size_t n_conds;
} clause;

typedef struct node {
	int type, op;   /* op: OP_*, or the F_* of N_CALL */
	int slot;       /* N_SLOT, N_LOCAL; N_CALL: the entry of functions[] */
	val k;          /* N_CONST */
	struct node **kids;
	size_t n_kids;
	int *ops;       /* N_COMPARE: n_kids - 1 C_* */
	clause *clauses; /* N_COMP: kids[0] is the element */
	size_t n_clauses;
	size_t pos;     /* where the text writes it, for messages */
	int height;     /* of the tree below: bounds the evaluator's recursion */
} node;

/* Everything a parse allocates, shared by the expressions that kjit__expr_split()
 * makes of one parse and freed with the last of them. */
typedef struct pool {
	atomic_int refs;
	void **blocks;
	size_t n, cap;
	char *text, *what;
	int dialect, n_locals;
	kjit__expr_budget *budget; /* the spec's, or NULL */
} pool;

/* The steps that a spec's evaluations draw on together: each takes what
 * it used when it ends, so that threads overrun it by an evaluation's
 * steps at most. */
struct kjit__expr_budget {
	uint64_t limit;
	atomic_uint_fast64_t spent;
};

kjit__expr_budget *kjit__expr_budget_new(uint64_t steps)
{
	kjit__expr_budget *b = malloc(sizeof *b);
	if (b) {
		b->limit = steps;
		atomic_init(&b->spent, 0);
	}
	return b;
}

void kjit__expr_budget_free(kjit__expr_budget *b)
{
	free(b);
}

struct flat;

struct kjit__expr {
	pool *pool;
	const node *root;
	const struct flat *flat; /* NULL: the tree alone evaluates it */
	int max_slot;
};

static const struct flat *flatten(pool *p, const node *root);

static void *pool_alloc(pool *p, size_t bytes)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		void **b = realloc(p->blocks, cap * sizeof *b);
		if (!b)
			return NULL;
		p->blocks = b;
		p->cap = cap;
	}
	void *m = calloc(1, bytes ? bytes : 1);
	if (m)
		p->blocks[p->n++] = m;
	return m;
}

static void pool_release(pool *p)
{
	if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->text);
	free(p->what);
	free(p);
}

/* ---- the lexer ---------------------------------------------------------- */

enum { T_END, T_INT, T_FLOAT, T_STR, T_NAME, T_OP };

typedef struct token {
	int type;
	size_t pos, len;
	int64_t i;
	double d;
} token;

typedef struct parser {
	const char *text;
	size_t pos;     /* after tok */
	token tok;
	int dialect;
	const char *const *names;
	size_t n_names;
	pool *pool;
	int max_slot, depth;
	const char *scope[MAX_LOCALS]; /* comprehension variables in scope, innermost last */
	size_t scope_len[MAX_LOCALS];
	int scope_slot[MAX_LOCALS];
	int n_scope;
	kjit_status st;
	char msg[256];
	size_t err_pos;
} parser;

static int fail(parser *P, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(parser *P, size_t pos, const char *fmt, ...)
{
	if (P->st != KJIT_OK)
		return 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(P->msg, sizeof P->msg, fmt, ap);
	va_end(ap);
	P->st = KJIT_ERR_INVALID_ARG;
	P->err_pos = pos;
	return 0;
}

static int nomem_parse(parser *P)
{
	if (P->st == KJIT_OK) {
		P->st = KJIT_ERR_NOMEM;
		snprintf(P->msg, sizeof P->msg, "out of memory");
	}
	return 0;
}

static const char *const ops2[] = { "**", "//", "<=", ">=", "==", "!=", "<>", "&&", "||",
	                            "<<", ">>" };

static int is_op(const parser *P, const char *op)
{
	size_t n = strlen(op);
	return P->tok.type == T_OP && P->tok.len == n && memcmp(P->text + P->tok.pos, op, n) == 0;
}
static int is_word(const parser *P, const char *w)
{
	size_t n = strlen(w);
	return P->tok.type == T_NAME && P->tok.len == n && memcmp(P->text + P->tok.pos, w, n) == 0;
}

/* Appends a character of the number at s to buf[MAX_NUMBER + 1]. */
static int put_digit(parser *P, const char *s, char *buf, size_t *n, char c)
{
	if (*n == MAX_NUMBER)
		return fail(P, (size_t)(s - P->text), "a number longer than %d characters",
		            MAX_NUMBER);
	buf[(*n)++] = c;
	return 1;
}

static int lex_number(parser *P, const char *s, token *t)
{
	const char *e = s;
	int is_float = 0, base = 10;
	char buf[MAX_NUMBER + 1], *end;
	size_t n = 0;
	if (s[0] == '0' && s[1] && strchr("xXoObB", s[1])) {
		base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
		for (e = s + 2; isalnum((unsigned char)*e) || *e == '_'; e++)
			if (*e != '_' && !put_digit(P, s, buf, &n, *e))
				return 0;
	}
	while (base == 10 &&
	       (isdigit((unsigned char)*e) || *e == '_' || *e == '.' ||
	        ((*e == 'e' || *e == 'E') && (isdigit((unsigned char)e[1]) ||
	                                      ((e[1] == '+' || e[1] == '-') &&
	                                       isdigit((unsigned char)e[2])))))) {
		is_float |= *e == '.' || *e == 'e' || *e == 'E';
		/* an exponent's sign goes with its 'e' */
		int sign = (*e == 'e' || *e == 'E') && (e[1] == '+' || e[1] == '-');
		for (int k = 0; k <= sign; k++, e++)
			if (*e != '_' && !put_digit(P, s, buf, &n, *e))
				return 0;
	}
	buf[n] = '\0';
	/* strtoull() would also read a second "0x" */
	if (isalpha((unsigned char)*e) || !n ||
	    (base != 10 && strspn(buf, "0123456789abcdefABCDEF") != n))
		return fail(P, (size_t)(s - P->text), "bad number '%.*s'", (int)(e - s + 1), s);
	errno = 0;
	t->len = (size_t)(e - s);
	if (is_float) {
		t->type = T_FLOAT;
		t->d = strtod(buf, &end);
	} else {
		unsigned long long u = strtoull(buf, &end, base);
		if (!*end && (errno || u > INT64_MAX))
			return fail(P, (size_t)(s - P->text), "integer %.*s does not fit 64 bits",
			            (int)t->len, s);
		t->type = T_INT;
		t->i = (int64_t)u;
	}
	if (*end)
		return fail(P, (size_t)(s - P->text), "bad number '%.*s'", (int)t->len, s);
	return 1;
}

/* Reads the token at P->pos into P->tok. */
static int advance(parser *P)
{
	const char *s = P->text + P->pos;
	while (isspace((unsigned char)*s))
		s++;
	token t = { .pos = (size_t)(s - P->text) };
	if (!*s) {
		t.type = T_END;
	} else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
		if (!lex_number(P, s, &t))
			return 0;
	} else if (isalpha((unsigned char)*s) || *s == '_') {
		const char *e = s;
		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
		t.type = T_NAME;
		t.len = (size_t)(e - s);
	} else if (*s == '"' || *s == '\'') {
		const char *e = s + 1;
		while (*e && *e != *s) {
			if (*e == '\\' && e[1])
				e++;
			e++;
		}
		if (!*e)
			return fail(P, t.pos, "unterminated string");
		t.type = T_STR;
		t.len = (size_t)(e + 1 - s);
	} else {
		t.type = T_OP;
		t.len = 0;
		for (size_t i = 0; i < sizeof ops2 / sizeof ops2[0]; i++)
			if (s[0] == ops2[i][0] && s[1] == ops2[i][1])
				t.len = 2;
		if (!t.len && strchr("+-*/%()[],<>=!.~&|^:", *s))
			t.len = 1;
		if (!t.len && isprint((unsigned char)*s))
			return fail(P, t.pos, "unexpected character '%c'", *s);
		if (!t.len)
			return fail(P, t.pos, "unexpected byte 0x%02x", (unsigned char)*s);
		if (P->dialect == KJIT__DIALECT_PYTHON) {
			static const struct { const char *op, *hint; } not_python[] = {
				{ "&&", "'and'" }, { "||", "'or'" }, { "<>", "'!='" } };
			for (size_t i = 0; i < 3; i++)
				if (t.len == 2 && memcmp(s, not_python[i].op, 2) == 0)
					return fail(P, t.pos, "'%s' is not Python: write %s", not_python[i].op,
					            not_python[i].hint);
			if (t.len == 1 && *s == '!')
				return fail(P, t.pos, "'!' is not Python: write 'not' or '!='");
		}
	}
	P->tok = t;
	P->pos = t.pos + t.len;
	return 1;
}

static void seek(parser *P, size_t pos)
{
	P->pos = pos;
	advance(P);
}

/* ---- the parser ---------------------------------------------------------- */

static node *new_node(parser *P, int type, size_t pos)
{
	node *n = pool_alloc(P->pool, sizeof *n);
	if (!n) {
		nomem_parse(P);
		return NULL;
	}
	n->type = type;
	n->pos = pos;
	return n;
}

static node *with_kids(parser *P, node *n, size_t count)
{
	if (!n)
		return NULL;
	n->kids = pool_alloc(P->pool, count * sizeof *n->kids);
	n->n_kids = count;
	if (!n->kids) {
		nomem_parse(P);
		return NULL;
	}
	return n;
}

/* Checks the height of a node whose children are set. */
static node *finish(parser *P, node *n)
{
	if (!n)
		return NULL;
	int h = 0;
	for (size_t i = 0; i < n->n_kids; i++)
		if (n->kids[i]->height > h)
			h = n->kids[i]->height;
	for (size_t c = 0; c < n->n_clauses; c++) {
		if (n->clauses[c].iter->height > h)
			h = n->clauses[c].iter->height;
		for (size_t j = 0; j < n->clauses[c].n_conds; j++)
			if (n->clauses[c].conds[j]->height > h)
				h = n->clauses[c].conds[j]->height;
	}
	n->height = h + 1;
	if (n->height > MAX_HEIGHT)
		return fail(P, n->pos, "more than %d operations deep", MAX_HEIGHT), NULL;
	return n;
}

static node *binary(parser *P, int type, int op, node *a, node *b, size_t pos)
{
	if (!a || !b)
		return NULL;
	node *n = with_kids(P, new_node(P, type, pos), 2);
	if (n) {
		n->op = op;
		n->kids[0] = a;
		n->kids[1] = b;
	}
	return finish(P, n);
}

static node *unary(parser *P, int type, node *a, size_t pos)
{
	if (!a)
		return NULL;
	node *n = with_kids(P, new_node(P, type, pos), 1);
	if (n)
		n->kids[0] = a;
	return finish(P, n);
}

static int expect(parser *P, const char *op)
{
	if (is_op(P, op))
		return advance(P);
	if (P->tok.type == T_END)
		return fail(P, P->tok.pos, "expected '%s' before the end", op);
	return fail(P, P->tok.pos, "expected '%s', got '%.*s'", op, (int)P->tok.len,
	            P->text + P->tok.pos);
}

static node *parse_expr(parser *P);
static node *parse_or(parser *P);

static int enter(parser *P)
{
	if (++P->depth > MAX_DEPTH)
		return fail(P, P->tok.pos, "nested more than %d deep", MAX_DEPTH);
	return 1;
}

static const char *const keywords[] = { "and", "or", "not", "if", "else", "for", "in", "is",
	                                "lambda", "True", "False", "None", NULL };

static int is_keyword(const char *s, size_t len)
{
	for (size_t i = 0; keywords[i]; i++)
		if (strlen(keywords[i]) == len && memcmp(keywords[i], s, len) == 0)
			return 1;
	return 0;
}

/* The position of a 'for' at this bracket's own depth, before it closes;
 * 0 when there is none (the element of a comprehension is parsed after its
 * clauses, which bind its names). */
static size_t find_for(parser *P)
{
	parser scan = *P;
	int depth = 0;
	size_t found = 0;
	for (;;) {
		if (scan.tok.type == T_END || scan.st != KJIT_OK)
			break;
		if (is_op(&scan, "(") || is_op(&scan, "["))
			depth++;
		else if (is_op(&scan, ")") || is_op(&scan, "]")) {
			if (depth-- == 0)
				break;
		} else if (depth == 0 && is_word(&scan, "for")) {
			found = scan.tok.pos;
			break;
		}
		if (!advance(&scan))
			break;
	}
	return found;
}

/* [element for x in iter if cond ...]: the tokens from the element up to
 * close. */
static node *parse_comp(parser *P, size_t for_pos, const char *close)
{
	size_t elem_pos = P->tok.pos, pos = P->tok.pos;
	int mark = P->n_scope;
	node *n = new_node(P, N_COMP, pos);
	if (!n)
		return NULL;
	seek(P, for_pos);
	while (P->st == KJIT_OK && is_word(P, "for")) {
		clause *c = pool_alloc(P->pool, (n->n_clauses + 1) * sizeof *c);
		if (!c)
			return nomem_parse(P), NULL;
		if (n->n_clauses)
			memcpy(c, n->clauses, n->n_clauses * sizeof *c);
		n->clauses = c;
		c = &n->clauses[n->n_clauses++];
		advance(P);
		if (P->tok.type != T_NAME || is_keyword(P->text + P->tok.pos, P->tok.len))
			return fail(P, P->tok.pos, "expected a variable name after 'for'"), NULL;
		token var = P->tok;
		advance(P);
		if (is_op(P, ","))
			return fail(P, P->tok.pos, "'for' binds one variable here, not a tuple"), NULL;
		if (!is_word(P, "in"))
			return fail(P, P->tok.pos, "expected 'in' after 'for %.*s'", (int)var.len,
			            P->text + var.pos), NULL;
		advance(P);
		if (!(c->iter = parse_or(P)))
			return NULL;
		if (P->n_scope == MAX_LOCALS || P->pool->n_locals == MAX_LOCALS)
			return fail(P, var.pos, "more than %d comprehension variables", MAX_LOCALS), NULL;
		c->local = P->pool->n_locals++;
		P->scope[P->n_scope] = P->text + var.pos;
		P->scope_len[P->n_scope] = var.len;
		P->scope_slot[P->n_scope++] = c->local;
		while (P->st == KJIT_OK && is_word(P, "if")) {
			advance(P);
			node *cond = parse_or(P);
			node **conds = pool_alloc(P->pool, (c->n_conds + 1) * sizeof *conds);
			if (!cond || !conds)
				return conds ? NULL : (nomem_parse(P), NULL);
			if (c->n_conds)
				memcpy(conds, c->conds, c->n_conds * sizeof *conds);
			conds[c->n_conds++] = cond;
			c->conds = conds;
		}
	}
	if (P->st != KJIT_OK || !expect(P, close))
		return NULL;
	token after = P->tok;
	size_t after_pos = P->pos;
	seek(P, elem_pos);
	if (!with_kids(P, n, 1) || !(n->kids[0] = parse_expr(P)))
		return NULL;
	if (P->tok.pos != for_pos)
		return fail(P, P->tok.pos, "expected 'for', got '%.*s'", (int)P->tok.len,
		            P->text + P->tok.pos), NULL;
	P->tok = after;
	P->pos = after_pos;
	P->n_scope = mark;
	return finish(P, n);
}

/* Items up to close: a list or tuple display, or the arguments of a call;
 * first, when not NULL, is the first item, read (a tuple's), with the
 * tokens at its comma. */
static node *parse_items(parser *P, node *n, const char *close, node *first)
{
	node *items[256];
	size_t count = 0;
	if (first) {
		items[count++] = first;
		advance(P);
	}
	while (P->st == KJIT_OK && !is_op(P, close)) {
		if (count == sizeof items / sizeof items[0])
			return fail(P, P->tok.pos, "more than %zu items in one display",
			            sizeof items / sizeof items[0]), NULL;
		if (n->type == N_CALL && P->tok.type == T_NAME) {
			parser look = *P;
			advance(&look);
			if (is_op(&look, "="))
				return fail(P, P->tok.pos, "keyword arguments are not supported"), NULL;
		}
		if (!(items[count++] = parse_expr(P)))
			return NULL;
		if (!is_op(P, ","))
			break;
		advance(P);
	}
	if (P->st != KJIT_OK || !expect(P, close) || !with_kids(P, n, count))
		return NULL;
	memcpy(n->kids, items, count * sizeof *items);
	return finish(P, n);
}

static int find_name(parser *P, const char *s, size_t len)
{
	for (size_t i = 0; i < P->n_names; i++)
		if (strlen(P->names[i]) == len && memcmp(P->names[i], s, len) == 0)
			return (int)i;
	return -1;
}

static node *slot_node(parser *P, int slot, size_t pos)
{
	node *n = new_node(P, N_SLOT, pos);
	if (n) {
		n->slot = slot;
		if (slot > P->max_slot)
			P->max_slot = slot;
	}
	return n;
}

/* math.pi, math.e, math.tau, math.inf, math.nan: name is what follows "math.". */
static node *math_constant(parser *P, const char *name, size_t len, size_t pos)
{
	static const struct { const char *name; double d; } constants[] = {
		{ "pi", 3.141592653589793 }, { "e", 2.718281828459045 }, { "tau", 6.283185307179586 },
		{ "inf", INFINITY }, { "nan", NAN } };
	for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
		if (strlen(constants[i].name) == len && memcmp(constants[i].name, name, len) == 0) {
			node *n = new_node(P, N_CONST, pos);
			if (n)
				n->k = v_float(constants[i].d);
			return n;
		}
	return fail(P, pos, "unknown name 'math.%.*s' (math's constants are pi, e, tau, inf and "
	            "nan)", (int)(len > 64 ? 64 : len), name), NULL;
}

static node *parse_name(parser *P)
{
	token t = P->tok;
	const char *s = P->text + t.pos;
	advance(P);
	for (int i = P->n_scope - 1; i >= 0; i--)
		if (P->scope_len[i] == t.len && memcmp(P->scope[i], s, t.len) == 0) {
			node *n = new_node(P, N_LOCAL, t.pos);
			if (n)
				n->slot = P->scope_slot[i];
			return n;
		}
	/* "ProblemSize[1]" may be a name of its own */
	if (is_op(P, "[")) {
		parser look = *P;
		advance(&look);
		if (look.tok.type == T_INT) {
			token k = look.tok;
			advance(&look);
			if (is_op(&look, "]")) {
				char name[160];
				snprintf(name, sizeof name, "%.*s[%" PRId64 "]", (int)(t.len > 128 ? 128 : t.len),
				         s, k.i);
				int slot = find_name(P, name, strlen(name));
				if (slot >= 0) {
					advance(&look);
					*P = look;
					return slot_node(P, slot, t.pos);
				}
			}
		}
	}
	int slot = find_name(P, s, t.len);
	if (slot >= 0 && !is_op(P, "("))
		return slot_node(P, slot, t.pos);
	static const struct { const char *w; int t; int64_t i; } consts[] = {
		{ "True", V_BOOL, 1 }, { "False", V_BOOL, 0 }, { "None", V_NONE, 0 } };
	for (size_t i = 0; i < 3; i++)
		if (strlen(consts[i].w) == t.len && memcmp(consts[i].w, s, t.len) == 0) {
			node *n = new_node(P, N_CONST, t.pos);
			if (n) {
				n->k.t = consts[i].t;
				n->k.u.i = consts[i].i;
			}
			return n;
		}
	size_t fn_len = t.len;
	const char *math = "";
	if (P->dialect == KJIT__DIALECT_PYTHON && t.len == 4 && memcmp(s, "math", 4) == 0 &&
	    is_op(P, ".")) {
		advance(P);
		if (P->tok.type != T_NAME)
			return fail(P, P->tok.pos, "expected a name after 'math.'"), NULL;
		s = P->text + P->tok.pos;
		fn_len = P->tok.len;
		math = "math.";
		advance(P);
		if (!is_op(P, "("))
			return math_constant(P, s, fn_len, t.pos);
	}
	if (!is_op(P, "(")) {
		if (slot < 0 && is_keyword(s, fn_len))
			return fail(P, t.pos, "unexpected '%.*s'", (int)fn_len, s), NULL;
		return fail(P, t.pos, "unknown name '%.*s' (not a parameter or problem size)",
		            (int)(fn_len > 64 ? 64 : fn_len), s), NULL;
	}
	const struct function *f = NULL;
	int mask = P->dialect == KJIT__DIALECT_PYTHON ? PY : KJ;
	for (size_t i = 0; i < N_FUNCTIONS; i++)
		if (strlen(functions[i].name) == fn_len && memcmp(functions[i].name, s, fn_len) == 0 &&
		    (functions[i].dialects & mask))
			f = &functions[i];
	if (!f)
		return fail(P, t.pos, "unknown function '%s%.*s'", math,
		            (int)(fn_len > 64 ? 64 : fn_len), s), NULL;
	size_t open = P->tok.pos;
	advance(P);
	node *call = new_node(P, N_CALL, t.pos);
	if (!call)
		return NULL;
	call->op = f->id;
	call->slot = (int)(f - functions);
	size_t for_pos = find_for(P);
	if (for_pos) {
		node *comp = parse_comp(P, for_pos, ")");
		if (!with_kids(P, call, 1) || !comp)
			return NULL;
		call->kids[0] = comp;
	} else if (!parse_items(P, call, ")", NULL)) {
		return NULL;
	}
	if ((int)call->n_kids < f->min_args || (int)call->n_kids > f->max_args) {
		if (f->min_args == f->max_args)
			fail(P, open, "%s() takes %d argument%s (got %zu)", f->name, f->min_args,
			     f->min_args == 1 ? "" : "s", call->n_kids);
		else
			fail(P, open, "%s() takes %d to %d arguments (got %zu)", f->name, f->min_args,
			     f->max_args, call->n_kids);
		return NULL;
	}
	return finish(P, call);
}

/* Code point cp (at most 0x10FFFF, no surrogate) as UTF-8 at s; its length. */
static size_t put_utf8(char *s, uint32_t cp)
{
	if (cp < 0x80) {
		s[0] = (char)cp;
		return 1;
	}
	size_t n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	static const unsigned char lead[] = { 0, 0, 0xC0, 0xE0, 0xF0 };
	for (size_t k = n - 1; k > 0; k--, cp >>= 6)
		s[k] = (char)(0x80 | (cp & 0x3F));
	s[0] = (char)(lead[n] | cp);
	return n;
}

/* The escape whose backslash is at text[at], as Python reads it: its code
 * point, or -1 for one that stands for nothing (a backslash before a line
 * end) and -2 for one that is no escape (kept as written, backslash and
 * all); *len is the characters it takes. 0 (and the parser's error) for
 * an invalid one. */
static int escape(parser *P, size_t at, int32_t *cp, size_t *len)
{
	const char *s = P->text + at + 1;
	static const char simple[] = "\n\\'\"abfnrtv", value[] = "\0\\'\"\a\b\f\n\r\t\v";
	const char *k = *s ? strchr(simple, *s) : NULL;
	*len = 2;
	if (k) {
		*cp = k == simple ? -1 : value[k - simple];
		return 1;
	}
	if (*s >= '0' && *s <= '7') {
		size_t i = 0;
		for (*cp = 0; i < 3 && s[i] >= '0' && s[i] <= '7'; i++)
			*cp = *cp * 8 + (s[i] - '0');
		*len = 1 + i;
		return 1;
	}
	size_t digits = *s == 'x' ? 2 : *s == 'u' ? 4 : *s == 'U' ? 8 : 0;
	if (*s == 'N')
		return fail(P, at, "the escape \\N{...} is not supported: write \\u or \\U");
	if (!digits) {
		*cp = -2;
		return 1;
	}
	uint32_t v = 0;
	for (size_t i = 1; i <= digits; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return fail(P, at, "truncated \\%c escape (%zu hex digits)", *s, digits);
		v = v * 16 + (uint32_t)(isdigit((unsigned char)s[i]) ? s[i] - '0'
		                                                     : (s[i] | 0x20) - 'a' + 10);
	}
	if (v > 0x10FFFF)
		return fail(P, at, "\\%.9s is not a Unicode character (above U+10FFFF)", s);
	if (v >= 0xD800 && v <= 0xDFFF)
		return fail(P, at, "\\%.5s is a surrogate, which UTF-8 cannot hold", s);
	*cp = (int32_t)v;
	*len = 2 + digits;
	return 1;
}

/* A string literal with Python's escapes, as UTF-8 (never longer than the
 * literal). */
static node *parse_string(parser *P)
{
	token t = P->tok;
	node *n = new_node(P, N_CONST, t.pos);
	char *s = pool_alloc(P->pool, t.len);
	if (!n || !s)
		return nomem_parse(P), NULL;
	size_t len = 0, step;
	for (size_t i = 1; i + 1 < t.len; i += step) {
		char c = P->text[t.pos + i];
		int32_t cp = 0;
		step = 1;
		if (c != '\\') {
			s[len++] = c; /* UTF-8 of the text goes through as it is */
			continue;
		}
		if (!escape(P, t.pos + i, &cp, &step))
			return NULL;
		if (cp == -2) { /* no escape: the backslash, then what follows as it is */
			s[len++] = '\\';
			step = 1;
		} else if (cp >= 0) {
			len += put_utf8(s + len, (uint32_t)cp);
		}
	}
	n->k.t = V_STR;
	n->k.u.str.s = s;
	n->k.u.str.len = len;
	advance(P);
	return n;
}

static node *parse_atom(parser *P)
{
	token t = P->tok;
	if (t.type == T_INT || t.type == T_FLOAT) {
		node *n = new_node(P, N_CONST, t.pos);
		if (n)
			n->k = t.type == T_INT ? v_int(t.i) : v_float(t.d);
		advance(P);
		return n;
	}
	if (t.type == T_STR)
		return parse_string(P);
	if (t.type == T_NAME)
		return parse_name(P);
	if (is_op(P, "(") || is_op(P, "[")) {
		const char *close = is_op(P, "(") ? ")" : "]";
		advance(P);
		size_t for_pos = find_for(P);
		if (for_pos)
			return parse_comp(P, for_pos, close);
		node *inner = NULL;
		if (*close == ')' && !is_op(P, ")")) {
			if (!(inner = parse_expr(P)))
				return NULL;
			if (is_op(P, ")")) {
				advance(P);
				return inner;
			}
			if (!is_op(P, ","))
				return expect(P, ")"), NULL;
			/* a tuple: read as a list, from its first item on (never read
			 * again: nested tuples would cost 2^depth) */
		}
		node *n = new_node(P, N_LIST, t.pos);
		return n ? parse_items(P, n, close, inner) : NULL;
	}
	if (t.type == T_END)
		return fail(P, t.pos, "unexpected end of the expression"), NULL;
	return fail(P, t.pos, "unexpected '%.*s'", (int)t.len, P->text + t.pos), NULL;
}

static node *parse_primary(parser *P)
{
	node *n = parse_atom(P);
	while (n && is_op(P, "[")) {
		size_t pos = P->tok.pos;
		advance(P);
		node *index = parse_expr(P);
		if (index && is_op(P, ":"))
			return fail(P, P->tok.pos, "slices are not supported"), NULL;
		if (!index || !expect(P, "]"))
			return NULL;
		n = binary(P, N_INDEX, 0, n, index, pos);
	}
	if (n && is_op(P, "(") )
		return fail(P, P->tok.pos, "only functions can be called"), NULL;
	if (n && is_op(P, "."))
		return fail(P, P->tok.pos, "attributes are not supported (only math.NAME)"), NULL;
	return n;
}

static node *parse_factor(parser *P);

static node *parse_power(parser *P)
{
	node *a = parse_primary(P);
	if (a && is_op(P, "**")) {
		size_t pos = P->tok.pos;
		if (!enter(P))
			return NULL;
		advance(P);
		a = binary(P, N_BINARY, OP_POW, a, parse_factor(P), pos);
		P->depth--;
	}
	return a;
}

static node *parse_factor(parser *P)
{
	size_t pos = P->tok.pos;
	int type = is_op(P, "-") ? N_NEG : is_op(P, "+") ? N_POS : is_op(P, "~") ? N_INVERT : -1;
	if (type < 0)
		return parse_power(P);
	if (!enter(P))
		return NULL;
	advance(P);
	node *n = unary(P, type, parse_factor(P), pos);
	P->depth--;
	return n;
}

/* A left-associative level of binary operators. */
typedef node *(*level_fn)(parser *);
static node *parse_level(parser *P, level_fn next, const char *const *ops, const int *codes,
                         size_t n_ops)
{
	node *a = next(P);
	for (;;) {
		size_t i;
		for (i = 0; i < n_ops && !is_op(P, ops[i]); i++)
			;
		if (!a || i == n_ops)
			break;
		size_t pos = P->tok.pos;
		advance(P);
		a = binary(P, N_BINARY, codes[i], a, next(P), pos);
	}
	return a;
}

static node *parse_term(parser *P)
{
	static const char *const ops[] = { "*", "/", "//", "%" };
	static const int codes[] = { OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD };
	return parse_level(P, parse_factor, ops, codes, 4);
}
static node *parse_arith(parser *P)
{
	static const char *const ops[] = { "+", "-" };
	static const int codes[] = { OP_ADD, OP_SUB };
	return parse_level(P, parse_term, ops, codes, 2);
}
static node *parse_shift(parser *P)
{
	static const char *const ops[] = { "<<", ">>" };
	static const int codes[] = { OP_SHL, OP_SHR };
	return parse_level(P, parse_arith, ops, codes, 2);
}
static node *parse_bitand(parser *P)
{
	static const char *const ops[] = { "&" };
	static const int codes[] = { OP_BITAND };
	return parse_level(P, parse_shift, ops, codes, 1);
}
static node *parse_bitxor(parser *P)
{
	static const char *const ops[] = { "^" };
	static const int codes[] = { OP_BITXOR };
	return parse_level(P, parse_bitand, ops, codes, 1);
}
static node *parse_bitor(parser *P)
{
	static const char *const ops[] = { "|" };
	static const int codes[] = { OP_BITOR };
	return parse_level(P, parse_bitxor, ops, codes, 1);
}

static int compare_op(parser *P)
{
	static const char *const ops[] = { "<", "<=", ">", ">=", "==", "!=" };
	for (int i = 0; i < 6; i++)
		if (is_op(P, ops[i]))
			return i;
	if (is_op(P, "="))
		return P->dialect == KJIT__DIALECT_KJIT
		               ? C_EQ
		               : fail(P, P->tok.pos, "'=' is not a Python comparison: write '=='") - 2;
	if (is_op(P, "<>"))
		return C_NE;
	if (is_word(P, "in"))
		return C_IN;
	if (is_word(P, "not")) {
		parser look = *P;
		advance(&look);
		if (is_word(&look, "in"))
			return C_NOTIN;
	}
	if (is_word(P, "is"))
		return fail(P, P->tok.pos, "'is' is not supported: write '==' or '!='") - 2;
	return -1;
}

static node *parse_compare(parser *P)
{
	node *first = parse_bitor(P);
	int op = first ? compare_op(P) : -1;
	if (op < 0)
		return op == -1 ? first : NULL;
	node *kids[64];
	int ops[64];
	size_t n = 0, pos = P->tok.pos;
	kids[n] = first;
	while (op >= 0) {
		if (n == 63)
			return fail(P, P->tok.pos, "more than 63 chained comparisons"), NULL;
		ops[n] = op;
		advance(P);
		if (op == C_NOTIN)
			advance(P);
		if (!(kids[++n] = parse_bitor(P)))
			return NULL;
		op = compare_op(P);
	}
	if (op < -1)
		return NULL;
	node *c = with_kids(P, new_node(P, N_COMPARE, pos), n + 1);
	if (!c || !(c->ops = pool_alloc(P->pool, n * sizeof *c->ops)))
		return c ? (nomem_parse(P), NULL) : NULL;
	memcpy(c->kids, kids, (n + 1) * sizeof *kids);
	memcpy(c->ops, ops, n * sizeof *ops);
	return finish(P, c);
}

static node *parse_not(parser *P)
{
	if (is_word(P, "not") || (P->dialect == KJIT__DIALECT_KJIT && is_op(P, "!"))) {
		size_t pos = P->tok.pos;
		if (!enter(P))
			return NULL;
		advance(P);
		node *n = unary(P, N_NOT, parse_not(P), pos);
		P->depth--;
		return n;
	}
	return parse_compare(P);
}

static node *parse_bool(parser *P, int type)
{
	const char *word = type == N_AND ? "and" : "or", *sym = type == N_AND ? "&&" : "||";
	node *a = type == N_AND ? parse_not(P) : parse_bool(P, N_AND);
	while (a && (is_word(P, word) || is_op(P, sym))) {
		size_t pos = P->tok.pos;
		advance(P);
		a = binary(P, type, 0, a, type == N_AND ? parse_not(P) : parse_bool(P, N_AND), pos);
	}
	return a;
}

static node *parse_or(parser *P)
{
	return parse_bool(P, N_OR);
}

static node *parse_expr(parser *P)
{
	if (!enter(P))
		return NULL;
	node *body = parse_or(P);
	if (body && is_word(P, "if")) {
		size_t pos = P->tok.pos;
		advance(P);
		node *cond = parse_or(P);
		if (cond && !is_word(P, "else"))
			return fail(P, P->tok.pos, "expected 'else' after 'x if condition'"), NULL;
		if (!cond)
			return NULL;
		advance(P);
		node *orelse = parse_expr(P);
		node *n = with_kids(P, new_node(P, N_IF, pos), 3);
		if (!n || !orelse)
			return NULL;
		n->kids[0] = body;
		n->kids[1] = cond;
		n->kids[2] = orelse;
		body = finish(P, n);
	}
	P->depth--;
	return body;
}

/* "WHAT: bad expression "TEXT": MESSAGE at column N" */
static kjit_status report(kjit_status st, const char *what, const char *text, const char *msg,
                          size_t column)
{
	if (st == KJIT_ERR_NOMEM)
		return kjit__error(st, "out of memory");
	if (column)
		return kjit__error(st, "%s: bad expression \"%.200s\": %s at column %zu", what, text,
		                   msg, column);
	return kjit__error(st, "%s: bad expression \"%.200s\": %s", what, text, msg);
}

kjit_status kjit__expr_parse(const char *text, kjit__dialect dialect, const char *const *names,
                             size_t n, const char *what, kjit__expr_budget *budget,
                             kjit__expr **out)
{
	*out = NULL;
	size_t len = strlen(text);
	if (len > MAX_TEXT)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: expression longer than %d characters",
		                   what, MAX_TEXT);
	pool *pl = calloc(1, sizeof *pl);
	kjit__expr *e = calloc(1, sizeof *e);
	if (!pl || !e || !(pl->text = strdup(text)) || !(pl->what = strdup(what))) {
		if (pl)
			free(pl->text);
		free(pl);
		free(e);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	atomic_init(&pl->refs, 1);
	pl->dialect = dialect;
	pl->budget = budget;
	parser P = { .text = pl->text, .dialect = dialect, .names = names, .n_names = n,
		     .pool = pl, .max_slot = -1 };
	e->pool = pl;
	node *root = NULL;
	if (advance(&P)) {
		if (P.tok.type == T_END)
			fail(&P, 0, "empty expression");
		else if ((root = parse_expr(&P)) && P.tok.type != T_END)
			fail(&P, P.tok.pos, "unexpected '%.*s' after the expression", (int)P.tok.len,
			     P.text + P.tok.pos);
	}
	if (P.st != KJIT_OK) {
		kjit_status st = report(P.st, what, text, P.msg, P.err_pos + 1);
		kjit__expr_free(e);
		return st;
	}
	e->root = root;
	e->flat = flatten(pl, root);
	e->max_slot = P.max_slot;
	*out = e;
	return KJIT_OK;
}

void kjit__expr_free(kjit__expr *e)
{
	if (!e)
		return;
	pool_release(e->pool);
	free(e);
}

int kjit__expr_max_slot(const kjit__expr *e)
{
	return e->max_slot;
}

static void subtree_reads(const node *n, uint8_t *reads, size_t len)
{
	if (n->type == N_SLOT && n->slot >= 0 && (size_t)n->slot < len)
		reads[n->slot] = 1;
	for (size_t i = 0; i < n->n_kids; i++)
		subtree_reads(n->kids[i], reads, len);
	for (size_t c = 0; c < n->n_clauses; c++) {
		subtree_reads(n->clauses[c].iter, reads, len);
		for (size_t j = 0; j < n->clauses[c].n_conds; j++)
			subtree_reads(n->clauses[c].conds[j], reads, len);
	}
}

void kjit__expr_reads(const kjit__expr *e, uint8_t *reads, size_t len)
{
	subtree_reads(e->root, reads, len);
}

static int subtree_max_slot(const node *n)
{
	int m = n->type == N_SLOT ? n->slot : -1;
	for (size_t i = 0; i < n->n_kids; i++) {
		int k = subtree_max_slot(n->kids[i]);
		m = k > m ? k : m;
	}
	for (size_t c = 0; c < n->n_clauses; c++) {
		int k = subtree_max_slot(n->clauses[c].iter);
		m = k > m ? k : m;
		for (size_t j = 0; j < n->clauses[c].n_conds; j++) {
			k = subtree_max_slot(n->clauses[c].conds[j]);
			m = k > m ? k : m;
		}
	}
	return m;
}

typedef struct terms {
	const node **v;
	size_t n, cap;
} terms;

static int add_term(terms *t, const node *n)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		const node **v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return 0;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = n;
	return 1;
}

static int collect_terms(pool *pl, const node *n, terms *t)
{
	if (n->type == N_AND)
		return collect_terms(pl, n->kids[0], t) && collect_terms(pl, n->kids[1], t);
	if (n->type != N_COMPARE || n->n_kids == 2)
		return add_term(t, n);
	/* a < b < c: a < b and b < c */
	for (size_t i = 0; i + 1 < n->n_kids; i++) {
		node *c = pool_alloc(pl, sizeof *c);
		node **kids = pool_alloc(pl, 2 * sizeof *kids);
		int *ops = pool_alloc(pl, sizeof *ops);
		if (!c || !kids || !ops)
			return 0;
		*c = *n;
		kids[0] = n->kids[i];
		kids[1] = n->kids[i + 1];
		ops[0] = n->ops[i];
		c->kids = kids;
		c->n_kids = 2;
		c->ops = ops;
		if (!add_term(t, c))
			return 0;
	}
	return 1;
}

kjit_status kjit__expr_split(const kjit__expr *e, kjit__expr ***out, size_t *n)
{
	terms t = { 0 };
	*out = NULL;
	*n = 0;
	kjit__expr **v = NULL;
	if (!collect_terms(e->pool, e->root, &t) || !(v = calloc(t.n, sizeof *v)))
		goto nomem;
	for (size_t i = 0; i < t.n; i++) {
		if (!(v[i] = malloc(sizeof *v[i])))
			goto nomem;
		atomic_fetch_add(&e->pool->refs, 1);
		v[i]->pool = e->pool;
		v[i]->root = t.v[i];
		v[i]->flat = flatten(e->pool, t.v[i]);
		v[i]->max_slot = subtree_max_slot(t.v[i]);
	}
	free(t.v);
	*out = v;
	*n = t.n;
	return KJIT_OK;
nomem:
	for (size_t i = 0; v && i < t.n; i++)
		kjit__expr_free(v[i]);
	free(v);
	free(t.v);
	return kjit__error(KJIT_ERR_NOMEM, "out of memory");
}

/* ---- evaluation ----------------------------------------------------------- */

typedef struct ctx {
	const pool *pool;
	kjit__expr_budget *budget; /* the spec's, or NULL: not drawn on */
	const kjit__value *slots;
	val locals[MAX_LOCALS];
	uint64_t steps, granted; /* left, and at the start */
	int spec_bound;          /* granted is what the spec's budget had left */
	size_t bytes;
	void **blocks; /* what this evaluation allocated */
	size_t n_blocks, cap_blocks;
} ctx;

static kjit_status eval_fail(ctx *c, const node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static kjit_status eval_fail(ctx *c, const node *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s: \"%.200s\": %s (at column %zu)",
	                   c->pool->what, c->pool->text, msg, n->pos + 1);
}

static kjit_status step(ctx *c, const node *n, uint64_t count)
{
	if (c->steps < count && c->spec_bound) {
		c->steps = 0; /* the rest is spent: no later evaluation gets a part of it */
		return eval_fail(c, n, "the expression budget of the spec is spent (%" PRIu64
		                 " steps in all its evaluations)", c->budget->limit);
	}
	if (c->steps < count)
		return eval_fail(c, n, "more than %u steps: the evaluation budget is spent",
		                 STEP_BUDGET);
	c->steps -= count;
	return KJIT_OK;
}

/* Memory of this evaluation, freed when it ends. */
static void *ctx_alloc(ctx *c, const node *n, size_t count, size_t size, kjit_status *st)
{
	if (count && size > MEM_BUDGET / count) {
		*st = eval_fail(c, n, "a value of more than %zu MiB", MEM_BUDGET >> 20);
		return NULL;
	}
	size_t bytes = count * size;
	if (c->bytes + bytes > MEM_BUDGET) {
		*st = eval_fail(c, n, "more than %zu MiB of values", MEM_BUDGET >> 20);
		return NULL;
	}
	if (c->n_blocks == c->cap_blocks) {
		size_t cap = c->cap_blocks ? 2 * c->cap_blocks : 16;
		void **b = realloc(c->blocks, cap * sizeof *b);
		if (!b) {
			*st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
			return NULL;
		}
		c->blocks = b;
		c->cap_blocks = cap;
	}
	void *m = malloc(bytes ? bytes : 1);
	if (!m) {
		*st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	c->bytes += bytes;
	c->blocks[c->n_blocks++] = m;
	return m;
}

static void ctx_done(ctx *c)
{
	if (c->budget)
		atomic_fetch_add(&c->budget->spent, c->granted - c->steps);
	for (size_t i = 0; i < c->n_blocks; i++)
		free(c->blocks[i]);
	free(c->blocks);
}

static kjit_status eval(ctx *c, const node *n, val *out);

static int truthy(const val *v)
{
	switch (v->t) {
	case V_NONE: return 0;
	case V_FLOAT: return v->u.d != 0;
	case V_STR: return v->u.str.len != 0;
	case V_LIST: return v->u.list.n != 0;
	case V_RANGE: return v->u.range.n != 0;
	default: return v->u.i != 0;
	}
}

/* The length of range(start, stop, step), step != 0. */
static uint64_t range_len(int64_t start, int64_t stop, int64_t step)
{
	if (step > 0 && start < stop)
		return ((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1;
	if (step < 0 && start > stop)
		return ((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step) + 1;
	return 0;
}

/* Iteration over a list, a range or a string. */
static int iter_len(const val *v, uint64_t *n)
{
	*n = v->t == V_LIST ? v->u.list.n : v->t == V_RANGE ? v->u.range.n
	     : v->t == V_STR ? v->u.str.len : 0;
	return v->t == V_LIST || v->t == V_RANGE || v->t == V_STR;
}
static val iter_at(const val *v, uint64_t k)
{
	if (v->t == V_LIST)
		return v->u.list.items[k];
	if (v->t == V_RANGE)
		return v_int((int64_t)((uint64_t)v->u.range.start + k * (uint64_t)v->u.range.step));
	val s = { .t = V_STR };
	s.u.str.s = v->u.str.s + k;
	s.u.str.len = 1;
	return s;
}

static kjit_status not_iterable(ctx *c, const node *n, const val *v)
{
	return eval_fail(c, n, "a %s is not a list", type_names[v->t]);
}

/* A list of n items of this evaluation. */
static kjit_status new_list(ctx *c, const node *n, uint64_t count, val *out)
{
	kjit_status st = step(c, n, count);
	if (st != KJIT_OK)
		return st;
	if (count > SIZE_MAX / sizeof(val))
		return eval_fail(c, n, "a list of %" PRIu64 " items", count);
	out->t = V_LIST;
	out->u.list.n = (size_t)count;
	out->u.list.items = ctx_alloc(c, n, (size_t)count, sizeof(val), &st);
	return st;
}

static kjit_status materialize(ctx *c, const node *n, const val *v, val *out)
{
	uint64_t count;
	if (!iter_len(v, &count))
		return not_iterable(c, n, v);
	if (v->t == V_LIST) {
		*out = *v;
		return KJIT_OK;
	}
	kjit_status st = new_list(c, n, count, out);
	for (uint64_t k = 0; st == KJIT_OK && k < count; k++)
		out->u.list.items[k] = iter_at(v, k);
	return st;
}

/* What comparing, searching or copying bytes costs: a step per 64. */
static kjit_status step_bytes(ctx *c, const node *n, uint64_t bytes)
{
	return step(c, n, 1 + bytes / 64);
}

static kjit_status equal(ctx *c, const node *n, const val *a, const val *b, int *res);

static int compare_vals(ctx *c, const node *n, const val *a, const val *b, int *cmp,
                        kjit_status *st)
{
	if (is_num(a) && is_num(b)) {
		if (a->t != V_FLOAT && b->t != V_FLOAT)
			*cmp = (a->u.i > b->u.i) - (a->u.i < b->u.i);
		else {
			double x = as_double(a), y = as_double(b);
			if (isnan(x) || isnan(y))
				return 0; /* unordered: every comparison but != is false */
			*cmp = (x > y) - (x < y);
		}
		return 1;
	}
	if (a->t == V_STR && b->t == V_STR) {
		size_t m = a->u.str.len < b->u.str.len ? a->u.str.len : b->u.str.len;
		if ((*st = step_bytes(c, n, m)) != KJIT_OK)
			return 0;
		int r = memcmp(a->u.str.s, b->u.str.s, m);
		*cmp = r ? (r > 0) - (r < 0) : (a->u.str.len > b->u.str.len) - (a->u.str.len < b->u.str.len);
		return 1;
	}
	if ((a->t == V_LIST || a->t == V_RANGE) && (b->t == V_LIST || b->t == V_RANGE)) {
		uint64_t na, nb;
		iter_len(a, &na);
		iter_len(b, &nb);
		for (uint64_t k = 0; k < na && k < nb; k++) {
			val x = iter_at(a, k), y = iter_at(b, k);
			int eq;
			if ((*st = step(c, n, 1)) != KJIT_OK || (*st = equal(c, n, &x, &y, &eq)) != KJIT_OK)
				return 0;
			if (!eq)
				return compare_vals(c, n, &x, &y, cmp, st);
		}
		*cmp = (na > nb) - (na < nb);
		return 1;
	}
	*st = eval_fail(c, n, "cannot order a %s and a %s", type_names[a->t], type_names[b->t]);
	return 0;
}

/* *res: a == b as Python has it; a list's or a range's items a step each,
 * two ranges without walking them (range(10 ** 18) == range(10 ** 18)). */
static kjit_status equal(ctx *c, const node *n, const val *a, const val *b, int *res)
{
	kjit_status st = KJIT_OK;
	*res = 0;
	if (is_num(a) && is_num(b)) {
		*res = a->t != V_FLOAT && b->t != V_FLOAT ? a->u.i == b->u.i
		                                          : as_double(a) == as_double(b);
	} else if (a->t == V_STR && b->t == V_STR) {
		if (a->u.str.len == b->u.str.len && (st = step_bytes(c, n, a->u.str.len)) == KJIT_OK)
			*res = memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
	} else if (a->t == V_RANGE && b->t == V_RANGE) {
		*res = a->u.range.n == b->u.range.n &&
		       (a->u.range.n == 0 || (a->u.range.start == b->u.range.start &&
		                              (a->u.range.n == 1 || a->u.range.step == b->u.range.step)));
	} else if ((a->t == V_LIST || a->t == V_RANGE) && (b->t == V_LIST || b->t == V_RANGE)) {
		uint64_t na, nb;
		iter_len(a, &na);
		iter_len(b, &nb);
		if (na != nb)
			return KJIT_OK;
		for (uint64_t k = 0; k < na; k++) {
			val x = iter_at(a, k), y = iter_at(b, k);
			if ((st = step(c, n, 1)) != KJIT_OK || (st = equal(c, n, &x, &y, res)) != KJIT_OK ||
			    !*res)
				return st;
		}
		*res = 1;
	} else {
		*res = a->t == V_NONE && b->t == V_NONE;
	}
	return st;
}

static kjit_status contains(ctx *c, const node *n, const val *item, const val *in, int *res)
{
	*res = 0;
	if (in->t == V_STR) {
		if (item->t != V_STR)
			return eval_fail(c, n, "'in <str>' needs a string on the left, not a %s",
			                 type_names[item->t]);
		/* memmem() is linear in both lengths */
		kjit_status st = step_bytes(c, n, (uint64_t)in->u.str.len + item->u.str.len);
		if (st == KJIT_OK)
			*res = !item->u.str.len ||
			       memmem(in->u.str.s, in->u.str.len, item->u.str.s, item->u.str.len) != NULL;
		return st;
	}
	if (in->t == V_RANGE) {
		double x = is_num(item) ? as_double(item) : NAN;
		if (x == floor(x) && fabs(x) < 9.2e18) {
			int64_t i = (int64_t)x, s = in->u.range.start, d = in->u.range.step;
			uint64_t off = d > 0 ? (uint64_t)i - (uint64_t)s : (uint64_t)s - (uint64_t)i;
			uint64_t ad = d > 0 ? (uint64_t)d : 0 - (uint64_t)d;
			*res = (d > 0 ? i >= s : i <= s) && off % ad == 0 && off / ad < in->u.range.n;
		}
		return KJIT_OK;
	}
	if (in->t != V_LIST)
		return eval_fail(c, n, "'in' needs a list, a range or a string on the right, not a %s",
		                 type_names[in->t]);
	kjit_status st = step(c, n, in->u.list.n);
	for (size_t k = 0; st == KJIT_OK && !*res && k < in->u.list.n; k++)
		st = equal(c, n, item, &in->u.list.items[k], res);
	return st;
}

static kjit_status compare(ctx *c, const node *n, int op, const val *a, const val *b, int *res)
{
	kjit_status st = KJIT_OK;
	int cmp = 0;
	switch (op) {
	case C_EQ:
	case C_NE:
		st = equal(c, n, a, b, res);
		*res ^= op == C_NE;
		return st;
	case C_IN:
	case C_NOTIN:
		st = contains(c, n, a, b, res);
		if (op == C_NOTIN)
			*res = !*res;
		return st;
	}
	if (!compare_vals(c, n, a, b, &cmp, &st)) {
		*res = 0;
		return st;
	}
	*res = op == C_LT ? cmp < 0 : op == C_LE ? cmp <= 0 : op == C_GT ? cmp > 0 : cmp >= 0;
	return KJIT_OK;
}

/* Python's divmod of doubles: the quotient floored, the remainder with the
 * divisor's sign. */
static void float_divmod(double a, double b, double *div, double *mod)
{
	double m = fmod(a, b), d = (a - m) / b;
	if (m != 0 && ((b < 0) != (m < 0))) {
		m += b;
		d -= 1;
	}
	if (m == 0)
		m = copysign(0.0, b);
	if (d != 0) {
		double f = floor(d);
		if (d - f > 0.5)
			f += 1;
		d = f;
	} else {
		d = copysign(0.0, a / b);
	}
	*div = d;
	*mod = m;
}

static kjit_status arith_float(ctx *c, const node *n, int op, double x, double y, val *out)
{
	int py = c->pool->dialect == KJIT__DIALECT_PYTHON;
	double div, mod, r;
	switch (op) {
	case OP_ADD: r = x + y; break;
	case OP_SUB: r = x - y; break;
	case OP_MUL: r = x * y; break;
	case OP_DIV: r = y == 0 ? NAN : x / y; break;
	case OP_FLOORDIV:
	case OP_MOD:
		if (y == 0) {
			r = NAN;
			break;
		}
		if (!py) {
			r = op == OP_MOD ? fmod(x, y) : x / y;
			break;
		}
		float_divmod(x, y, &div, &mod);
		r = op == OP_MOD ? mod : div;
		break;
	case OP_POW:
		r = x == 0 && y < 0 ? NAN : pow(x, y);
		break;
	default:
		return eval_fail(c, n, "'%s' needs integers", op_names[op]);
	}
	*out = v_float(r);
	return KJIT_OK;
}

/* x ** y for y >= 0; 0 when it does not fit. */
static int ipow(int64_t x, int64_t y, int64_t *out)
{
	int64_t r = 1;
	while (y > 0) {
		if ((y & 1) && __builtin_mul_overflow(r, x, &r))
			return 0;
		y >>= 1;
		if (y && __builtin_mul_overflow(x, x, &x))
			return 0;
	}
	*out = r;
	return 1;
}

static kjit_status arith_int(ctx *c, const node *n, int op, int64_t x, int64_t y, val *out)
{
	int py = c->pool->dialect == KJIT__DIALECT_PYTHON;
	int64_t r;
	switch (op) {
	case OP_ADD: if (!__builtin_add_overflow(x, y, &r)) goto done; break;
	case OP_SUB: if (!__builtin_sub_overflow(x, y, &r)) goto done; break;
	case OP_MUL: if (!__builtin_mul_overflow(x, y, &r)) goto done; break;
	case OP_DIV:
		if (py || y == 0)
			break; /* true division, or NaN */
		if (x == INT64_MIN && y == -1)
			break;
		r = x / y;
		goto done;
	case OP_FLOORDIV:
	case OP_MOD:
		if (y == 0)
			break;
		if (y == -1) { /* INT64_MIN / -1 does not fit */
			if (op == OP_MOD) {
				r = 0;
				goto done;
			}
			if (x == INT64_MIN)
				break;
		}
		r = op == OP_MOD ? x % y : x / y;
		if (py && x % y != 0 && ((x < 0) != (y < 0)))
			r = op == OP_MOD ? r + y : r - 1;
		goto done;
	case OP_POW:
		if (y >= 0 && ipow(x, y, &r))
			goto done;
		break;
	case OP_BITOR: r = x | y; goto done;
	case OP_BITXOR: r = x ^ y; goto done;
	case OP_BITAND: r = x & y; goto done;
	case OP_SHL:
	case OP_SHR:
		if (y < 0)
			return eval_fail(c, n, "a negative shift count");
		if (op == OP_SHR) {
			r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
			goto done;
		}
		if (y < 63 && (x == 0 || (x > 0 ? x <= (INT64_MAX >> y) : x >= (INT64_MIN >> y)))) {
			r = (int64_t)((uint64_t)x << y);
			goto done;
		}
		*out = v_float(ldexp((double)x, y > 4000 ? 4000 : (int)y));
		return KJIT_OK;
	}
	return arith_float(c, n, op, (double)x, (double)y, out);
done:
	*out = v_int(r);
	return KJIT_OK;
}

/* a + b and n * a of lists and strings. */
static kjit_status arith_seq(ctx *c, const node *n, int op, const val *a, const val *b, val *out)
{
	kjit_status st = KJIT_OK;
	if (op == OP_ADD && a->t == b->t && (a->t == V_STR || a->t == V_LIST)) {
		if (a->t == V_LIST) {
			st = new_list(c, n, (uint64_t)a->u.list.n + b->u.list.n, out);
			if (st == KJIT_OK) {
				memcpy(out->u.list.items, a->u.list.items, a->u.list.n * sizeof(val));
				memcpy(out->u.list.items + a->u.list.n, b->u.list.items,
				       b->u.list.n * sizeof(val));
			}
			return st;
		}
		char *s = (st = step_bytes(c, n, (uint64_t)a->u.str.len + b->u.str.len)) == KJIT_OK
		                  ? ctx_alloc(c, n, a->u.str.len + b->u.str.len, 1, &st)
		                  : NULL;
		if (s) {
			memcpy(s, a->u.str.s, a->u.str.len);
			memcpy(s + a->u.str.len, b->u.str.s, b->u.str.len);
			out->t = V_STR;
			out->u.str.s = s;
			out->u.str.len = a->u.str.len + b->u.str.len;
		}
		return st;
	}
	if (op == OP_MUL && (b->t == V_LIST || b->t == V_STR) && (a->t == V_INT || a->t == V_BOOL)) {
		const val *t = a;
		a = b;
		b = t;
	}
	if (op == OP_MUL && (a->t == V_LIST || a->t == V_STR) && (b->t == V_INT || b->t == V_BOOL)) {
		uint64_t times = b->u.i > 0 ? (uint64_t)b->u.i : 0;
		size_t len = a->t == V_LIST ? a->u.list.n : a->u.str.len;
		if (len && times > (uint64_t)MEM_BUDGET / len)
			return eval_fail(c, n, "a sequence of %zu items repeated %" PRIu64 " times", len,
			                 times);
		if (!len)
			times = 0; /* '' * 10 ** 18 is '', at once */
		size_t total = len * (size_t)times;
		char *dst;
		if (a->t == V_LIST) {
			if ((st = new_list(c, n, total, out)) != KJIT_OK)
				return st;
			dst = (char *)out->u.list.items;
			len *= sizeof(val);
		} else {
			if ((st = step(c, n, times + total / 64)) != KJIT_OK ||
			    !(dst = ctx_alloc(c, n, total, 1, &st)))
				return st;
			out->t = V_STR;
			out->u.str.s = dst;
			out->u.str.len = total;
		}
		const void *src = a->t == V_LIST ? (const void *)a->u.list.items : a->u.str.s;
		for (uint64_t k = 0; k < times; k++)
			memcpy(dst + k * len, src, len);
		return KJIT_OK;
	}
	return eval_fail(c, n, "'%s' of a %s and a %s", op_names[op], type_names[a->t],
	                 type_names[b->t]);
}

static kjit_status arith(ctx *c, const node *n, int op, const val *a, const val *b, val *out)
{
	if (is_num(a) && is_num(b)) {
		if (a->t != V_FLOAT && b->t != V_FLOAT)
			return arith_int(c, n, op, a->u.i, b->u.i, out);
		return arith_float(c, n, op, as_double(a), as_double(b), out);
	}
	if (c->pool->dialect == KJIT__DIALECT_KJIT && (a->t == V_NONE || b->t == V_NONE)) {
		out->t = V_NONE; /* SQL's NULL goes through */
		return KJIT_OK;
	}
	return arith_seq(c, n, op, a, b, out);
}

static kjit_status want_number(ctx *c, const node *n, const val *v, const char *fn)
{
	if (is_num(v))
		return KJIT_OK;
	return eval_fail(c, n, "%s() of a %s", fn, type_names[v->t]);
}

/* An integral double as an int when it fits, else as it is. */
static val integral(double d)
{
	return d == d && fabs(d) < 9.2e18 ? v_int((int64_t)d) : v_float(d);
}

/* min, max, any, all, sum or prod of the items of seq (a list, a range or
 * a string: a range is never made a list). */
static kjit_status fold(ctx *c, const node *n, int fn, const val *seq, val *out)
{
	uint64_t count;
	if (!iter_len(seq, &count))
		return not_iterable(c, n, seq);
	kjit_status st = step(c, n, count);
	if (st != KJIT_OK)
		return st;
	if (fn == F_MIN || fn == F_MAX) {
		if (!count)
			return eval_fail(c, n, "%s() of an empty list", fn == F_MIN ? "min" : "max");
		*out = iter_at(seq, 0);
		for (uint64_t k = 1; k < count; k++) {
			val x = iter_at(seq, k);
			int cmp;
			if (!compare_vals(c, n, &x, out, &cmp, &st)) {
				if (st != KJIT_OK)
					return st;
				continue;
			}
			if (fn == F_MIN ? cmp < 0 : cmp > 0)
				*out = x;
		}
		return KJIT_OK;
	}
	if (fn == F_ANY || fn == F_ALL) {
		int r = fn == F_ALL;
		for (uint64_t k = 0; k < count; k++) {
			val x = iter_at(seq, k);
			if (truthy(&x) != r)
				return (*out = v_bool(!r)), KJIT_OK;
		}
		*out = v_bool(r);
		return KJIT_OK;
	}
	/* F_SUM, F_PROD */
	for (uint64_t k = 0; k < count && st == KJIT_OK; k++) {
		val x = iter_at(seq, k);
		st = arith(c, n, fn == F_SUM ? OP_ADD : OP_MUL, out, &x, out);
	}
	return st;
}

static int num_cmp(const void *a, const void *b)
{
	const val *x = a, *y = b;
	double p = as_double(x), q = as_double(y);
	return (p > q) - (p < q);
}

static int str_cmp(const void *a, const void *b)
{
	const val *x = a, *y = b;
	size_t m = x->u.str.len < y->u.str.len ? x->u.str.len : y->u.str.len;
	int r = memcmp(x->u.str.s, y->u.str.s, m);
	return r ? r : (x->u.str.len > y->u.str.len) - (x->u.str.len < y->u.str.len);
}

/* What qsort() of a list costs: n log n comparisons, of its strings'
 * bytes too. */
static kjit_status sort_steps(ctx *c, const node *n, const val *list)
{
	uint64_t items = list->u.list.n, bytes = 0, log = 1;
	for (uint64_t k = items; k > 1; k >>= 1)
		log++;
	for (size_t k = 0; k < list->u.list.n; k++)
		if (list->u.list.items[k].t == V_STR)
			bytes += list->u.list.items[k].u.str.len;
	return step(c, n, (items + bytes / 64) * log);
}

void kjit__float_repr(double d, char out[40])
{
	if (isnan(d)) {
		strcpy(out, "nan");
		return;
	}
	if (isinf(d)) {
		strcpy(out, d < 0 ? "-inf" : "inf");
		return;
	}
	char e[40], digits[24];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof e, "%.*e", prec - 1, d);
		if (strtod(e, NULL) == d)
			break;
	}
	const char *p = e;
	char *o = out;
	int nd = 0;
	if (*p == '-') {
		*o++ = '-';
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (isdigit((unsigned char)*p))
			digits[nd++] = *p;
	int x = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (x >= -4 && x < 16) {
		if (x >= 0) {
			for (int k = 0; k <= x; k++)
				*o++ = k < nd ? digits[k] : '0';
			*o++ = '.';
			if (nd > x + 1)
				for (int k = x + 1; k < nd; k++)
					*o++ = digits[k];
			else
				*o++ = '0';
		} else {
			*o++ = '0';
			*o++ = '.';
			for (int k = 0; k < -x - 1; k++)
				*o++ = '0';
			for (int k = 0; k < nd; k++)
				*o++ = digits[k];
		}
		*o = '\0';
	} else {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			for (int k = 1; k < nd; k++)
				*o++ = digits[k];
		}
		snprintf(o, (size_t)(out + 40 - o), "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
	}
}

/* Python's str() of a number or a bool into out[40]; NULL for other values. */
static const char *number_text(const val *v, char out[40])
{
	if (v->t == V_BOOL)
		return v->u.i ? "True" : "False";
	if (v->t == V_INT) {
		snprintf(out, 40, "%" PRId64, v->u.i);
		return out;
	}
	if (v->t == V_FLOAT) {
		kjit__float_repr(v->u.d, out);
		return out;
	}
	return v->t == V_NONE ? "None" : NULL;
}

/* A short string as C text into buf[64] (int() and float() of it); 0 when
 * v is no string or too long to be a number. */
static int str_text(const val *v, char buf[64])
{
	if (v->t != V_STR || v->u.str.len >= 64)
		return 0;
	memcpy(buf, v->u.str.s, v->u.str.len);
	buf[v->u.str.len] = '\0';
	return 1;
}

static kjit_status to_int(ctx *c, const node *n, const val *v, val *out)
{
	if (v->t == V_INT || v->t == V_BOOL) {
		*out = v_int(v->u.i);
		return KJIT_OK;
	}
	if (v->t == V_FLOAT) {
		if (!(fabs(v->u.d) < 9.2e18))
			return eval_fail(c, n, "int() of %g", v->u.d);
		*out = v_int((int64_t)v->u.d);
		return KJIT_OK;
	}
	char buf[64], *end;
	if (str_text(v, buf)) {
		errno = 0;
		long long i = strtoll(buf, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (end != buf && !*end && !errno) {
			*out = v_int(i);
			return KJIT_OK;
		}
	}
	return eval_fail(c, n, "int() of a %s that is no integer", type_names[v->t]);
}

static kjit_status call(ctx *c, const node *n, val *a, size_t na, val *out)
{
	kjit_status st = KJIT_OK;
	int py = c->pool->dialect == KJIT__DIALECT_PYTHON;
	const char *fname = functions[n->slot].name; /* as the text spells it */
	switch (n->op) {
	case F_MIN:
	case F_MAX:
	case F_SUM:
	case F_PROD:
	case F_ANY:
	case F_ALL:
		if (na == 1 || n->op == F_SUM || n->op == F_PROD || n->op == F_ANY || n->op == F_ALL) {
			*out = n->op == F_SUM ? (na == 2 ? a[1] : v_int(0)) : v_int(1);
			return fold(c, n, n->op, &a[0], out);
		} else {
			val args = { .t = V_LIST };
			args.u.list.items = a;
			args.u.list.n = na;
			return fold(c, n, n->op, &args, out);
		}
	case F_ABS:
		if ((st = want_number(c, n, &a[0], fname)) != KJIT_OK)
			return st;
		if (a[0].t == V_FLOAT)
			*out = v_float(fabs(a[0].u.d));
		else
			*out = a[0].u.i == INT64_MIN ? v_float(9223372036854775808.0)
			                             : v_int(a[0].u.i < 0 ? -a[0].u.i : a[0].u.i);
		return KJIT_OK;
	case F_POW:
		return arith(c, n, OP_POW, &a[0], &a[1], out);
	case F_ROUND:
		if ((st = want_number(c, n, &a[0], fname)) != KJIT_OK ||
		    (na == 2 && (st = want_number(c, n, &a[1], fname)) != KJIT_OK))
			return st;
		if (na == 2) {
			double scale = pow(10, as_double(&a[1])), x = as_double(&a[0]) * scale;
			*out = v_float((py ? nearbyint(x) : round(x)) / scale);
			return KJIT_OK;
		}
		if (a[0].t != V_FLOAT)
			*out = py ? v_int(a[0].u.i) : v_float((double)a[0].u.i);
		else
			*out = py ? integral(nearbyint(a[0].u.d)) : v_float(round(a[0].u.d));
		return KJIT_OK;
	case F_INT:
		return to_int(c, n, &a[0], out);
	case F_FLOAT: {
		if (is_num(&a[0])) {
			*out = v_float(as_double(&a[0]));
			return KJIT_OK;
		}
		char buf[64], *end;
		if (str_text(&a[0], buf)) {
			double d = strtod(buf, &end);
			if (end != buf && !*end) {
				*out = v_float(d);
				return KJIT_OK;
			}
		}
		return eval_fail(c, n, "float() of a %s that is no number", type_names[a[0].t]);
	}
	case F_BOOL:
		*out = v_bool(truthy(&a[0]));
		return KJIT_OK;
	case F_STR: {
		char buf[40];
		const char *t = a[0].t == V_STR ? NULL : number_text(&a[0], buf);
		if (a[0].t == V_STR) {
			*out = a[0];
			return KJIT_OK;
		}
		if (!t)
			return eval_fail(c, n, "str() of a %s", type_names[a[0].t]);
		char *s = ctx_alloc(c, n, strlen(t), 1, &st);
		if (!s)
			return st;
		memcpy(s, t, strlen(t));
		out->t = V_STR;
		out->u.str.s = s;
		out->u.str.len = strlen(t);
		return KJIT_OK;
	}
	case F_LEN: {
		uint64_t len;
		if (!iter_len(&a[0], &len))
			return eval_fail(c, n, "len() of a %s", type_names[a[0].t]);
		*out = v_int((int64_t)len);
		return KJIT_OK;
	}
	case F_RANGE: {
		int64_t r[3] = { 0, 0, 1 };
		for (size_t i = 0; i < na; i++) {
			if (a[i].t != V_INT && a[i].t != V_BOOL)
				return eval_fail(c, n, "range() takes integers (argument %zu is a %s)", i + 1,
				                 type_names[a[i].t]);
			r[na == 1 ? 1 : i] = a[i].u.i;
		}
		if (r[2] == 0)
			return eval_fail(c, n, "range() with a step of 0");
		out->t = V_RANGE;
		out->u.range.start = r[0];
		out->u.range.step = r[2];
		out->u.range.n = range_len(r[0], r[1], r[2]);
		return KJIT_OK;
	}
	case F_LIST:
		return materialize(c, n, &a[0], out);
	case F_SORTED: {
		val list;
		if ((st = materialize(c, n, &a[0], &list)) != KJIT_OK ||
		    (st = new_list(c, n, list.u.list.n, out)) != KJIT_OK)
			return st;
		int strings = 0, numbers = 0;
		for (size_t k = 0; k < list.u.list.n; k++) {
			out->u.list.items[k] = list.u.list.items[k];
			strings += list.u.list.items[k].t == V_STR;
			numbers += is_num(&list.u.list.items[k]);
		}
		if ((size_t)(strings + numbers) != list.u.list.n || (strings && numbers))
			return eval_fail(c, n, "sorted() of a list that mixes kinds of values");
		if ((st = sort_steps(c, n, out)) != KJIT_OK)
			return st;
		qsort(out->u.list.items, list.u.list.n, sizeof(val), strings ? str_cmp : num_cmp);
		return KJIT_OK;
	}
	case F_FLOOR:
	case F_CEIL:
		if ((st = want_number(c, n, &a[0], fname)) != KJIT_OK)
			return st;
		if (a[0].t != V_FLOAT)
			*out = v_int(a[0].u.i);
		else {
			double r = n->op == F_FLOOR ? floor(a[0].u.d) : ceil(a[0].u.d);
			*out = py ? integral(r) : v_float(r);
		}
		return KJIT_OK;
	case F_SQRT:
	case F_LOG:
	case F_LN:
	case F_LOG2:
	case F_LOG10:
	case F_EXP: {
		for (size_t i = 0; i < na; i++)
			if ((st = want_number(c, n, &a[i], fname)) != KJIT_OK)
				return st;
		double x = as_double(&a[na - 1]), r;
		switch (n->op) {
		case F_SQRT: r = x < 0 ? NAN : sqrt(x); break;
		case F_EXP: r = exp(x); break;
		case F_LOG2: r = x <= 0 ? NAN : log2(x); break;
		case F_LOG10: r = x <= 0 ? NAN : log10(x); break;
		case F_LN: r = x <= 0 ? NAN : log(x); break;
		default: /* F_LOG: Python's log(x[, base]); SQL's log(x) is base 10, log(b, x) */
			if (py) {
				x = as_double(&a[0]);
				double b = na == 2 ? as_double(&a[1]) : exp(1.0);
				r = x <= 0 || b <= 0 || b == 1 ? NAN : log(x) / log(b);
			} else {
				double b = na == 2 ? as_double(&a[0]) : 10;
				r = x <= 0 || b <= 0 || b == 1 ? NAN : log(x) / log(b);
			}
		}
		*out = v_float(r);
		return KJIT_OK;
	}
	case F_GCD: {
		if (a[0].t == V_FLOAT || a[1].t == V_FLOAT || !is_num(&a[0]) || !is_num(&a[1]))
			return eval_fail(c, n, "gcd() takes integers");
		uint64_t x = a[0].u.i < 0 ? 0 - (uint64_t)a[0].u.i : (uint64_t)a[0].u.i;
		uint64_t y = a[1].u.i < 0 ? 0 - (uint64_t)a[1].u.i : (uint64_t)a[1].u.i;
		while (y) {
			uint64_t t = x % y;
			x = y;
			y = t;
		}
		*out = x > INT64_MAX ? v_float((double)x) : v_int((int64_t)x);
		return KJIT_OK;
	}
	case F_IIF:
		*out = truthy(&a[0]) ? a[1] : a[2];
		return KJIT_OK;
	case F_COALESCE:
	case F_IFNULL:
		for (size_t i = 0; i < na; i++)
			if (a[i].t != V_NONE)
				return (*out = a[i]), KJIT_OK;
		out->t = V_NONE;
		return KJIT_OK;
	case F_NULLIF: {
		int eq;
		if ((st = equal(c, n, &a[0], &a[1], &eq)) == KJIT_OK && !eq)
			*out = a[0];
		else
			out->t = V_NONE;
		return st;
	}
	}
	return eval_fail(c, n, "no such function");
}

/* The clauses of a comprehension from clause k on, appending elements to
 * *acc (grown by doubling, memory of this evaluation). */
typedef struct acc {
	val *items;
	size_t n, cap;
} acc;

static kjit_status comp(ctx *c, const node *n, size_t k, acc *a)
{
	kjit_status st;
	if (k == n->n_clauses) {
		if (a->n == a->cap) {
			size_t cap = a->cap ? 2 * a->cap : 16;
			val *items = ctx_alloc(c, n, cap, sizeof *items, &st);
			if (!items)
				return st;
			if (a->n)
				memcpy(items, a->items, a->n * sizeof *items);
			a->items = items;
			a->cap = cap;
		}
		return eval(c, n->kids[0], &a->items[a->n++]);
	}
	const clause *cl = &n->clauses[k];
	val it;
	uint64_t len;
	if ((st = eval(c, cl->iter, &it)) != KJIT_OK)
		return st;
	if (!iter_len(&it, &len))
		return not_iterable(c, cl->iter, &it);
	for (uint64_t i = 0; i < len; i++) {
		if ((st = step(c, n, 1)) != KJIT_OK)
			return st;
		c->locals[cl->local] = iter_at(&it, i);
		int keep = 1;
		for (size_t j = 0; keep && j < cl->n_conds; j++) {
			val v;
			if ((st = eval(c, cl->conds[j], &v)) != KJIT_OK)
				return st;
			keep = truthy(&v);
		}
		if (keep && (st = comp(c, n, k + 1, a)) != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

static kjit_status slot_value(ctx *c, const node *n, const kjit__value *s, val *out)
{
	switch (s->kind) {
	case SQLITE_INTEGER: *out = v_int(s->i); return KJIT_OK;
	case SQLITE_FLOAT: *out = v_float(s->d); return KJIT_OK;
	case SQLITE_TEXT:
		out->t = V_STR;
		out->u.str.s = s->text;
		out->u.str.len = strlen(s->text);
		return step_bytes(c, n, out->u.str.len);
	case KJIT__KIND_LIST: {
		kjit_status st = new_list(c, n, s->n_items, out);
		for (size_t k = 0; st == KJIT_OK && k < s->n_items; k++)
			st = slot_value(c, n, &s->items[k], &out->u.list.items[k]);
		return st;
	}
	}
	return eval_fail(c, n, "a name without a value");
}

/* Apart from eval(), whose frame stays small for deep trees. */
static kjit_status eval_call(ctx *c, const node *n, val *out)
{
	val args[MAX_ARGS];
	for (size_t i = 0; i < n->n_kids; i++) {
		kjit_status st = eval(c, n->kids[i], &args[i]);
		if (st != KJIT_OK)
			return st;
	}
	return call(c, n, args, n->n_kids, out);
}

static kjit_status eval(ctx *c, const node *n, val *out)
{
	kjit_status st = step(c, n, 1);
	val a, b;
	if (st != KJIT_OK)
		return st;
	switch (n->type) {
	case N_CONST:
		*out = n->k;
		return KJIT_OK;
	case N_SLOT:
		return slot_value(c, n, &c->slots[n->slot], out);
	case N_LOCAL:
		*out = c->locals[n->slot];
		return KJIT_OK;
	case N_NEG:
	case N_POS:
	case N_INVERT:
		if ((st = eval(c, n->kids[0], &a)) != KJIT_OK)
			return st;
		if (!is_num(&a) || (n->type == N_INVERT && a.t == V_FLOAT))
			return eval_fail(c, n, "unary '%c' of a %s",
			                 n->type == N_NEG ? '-' : n->type == N_POS ? '+' : '~',
			                 type_names[a.t]);
		if (n->type == N_POS)
			*out = a.t == V_BOOL ? v_int(a.u.i) : a;
		else if (n->type == N_INVERT)
			*out = v_int(~a.u.i);
		else if (a.t == V_FLOAT)
			*out = v_float(-a.u.d);
		else
			*out = a.u.i == INT64_MIN ? v_float(9223372036854775808.0) : v_int(-a.u.i);
		return KJIT_OK;
	case N_NOT:
		if ((st = eval(c, n->kids[0], &a)) != KJIT_OK)
			return st;
		*out = v_bool(!truthy(&a));
		return KJIT_OK;
	case N_BINARY:
		if ((st = eval(c, n->kids[0], &a)) != KJIT_OK ||
		    (st = eval(c, n->kids[1], &b)) != KJIT_OK)
			return st;
		return arith(c, n, n->op, &a, &b, out);
	case N_AND:
	case N_OR:
		if ((st = eval(c, n->kids[0], out)) != KJIT_OK)
			return st;
		if (truthy(out) == (n->type == N_OR))
			return KJIT_OK;
		return eval(c, n->kids[1], out);
	case N_COMPARE: {
		if ((st = eval(c, n->kids[0], &a)) != KJIT_OK)
			return st;
		int res = 1;
		for (size_t i = 0; res && i + 1 < n->n_kids; i++) {
			if ((st = eval(c, n->kids[i + 1], &b)) != KJIT_OK ||
			    (st = compare(c, n, n->ops[i], &a, &b, &res)) != KJIT_OK)
				return st;
			a = b;
		}
		*out = v_bool(res);
		return KJIT_OK;
	}
	case N_IF:
		if ((st = eval(c, n->kids[1], &a)) != KJIT_OK)
			return st;
		return eval(c, n->kids[truthy(&a) ? 0 : 2], out);
	case N_CALL:
		return eval_call(c, n, out);
	case N_LIST:
		if ((st = new_list(c, n, n->n_kids, out)) != KJIT_OK)
			return st;
		for (size_t i = 0; i < n->n_kids; i++)
			if ((st = eval(c, n->kids[i], &out->u.list.items[i])) != KJIT_OK)
				return st;
		return KJIT_OK;
	case N_COMP: {
		acc ac = { 0 };
		if ((st = comp(c, n, 0, &ac)) != KJIT_OK)
			return st;
		static val none[1]; /* an empty list's items: never NULL, for memcpy */
		out->t = V_LIST;
		out->u.list.items = ac.items ? ac.items : none;
		out->u.list.n = ac.n;
		return KJIT_OK;
	}
	case N_INDEX: {
		uint64_t len;
		if ((st = eval(c, n->kids[0], &a)) != KJIT_OK ||
		    (st = eval(c, n->kids[1], &b)) != KJIT_OK)
			return st;
		if (!iter_len(&a, &len))
			return eval_fail(c, n, "a %s cannot be indexed", type_names[a.t]);
		if (b.t != V_INT && b.t != V_BOOL)
			return eval_fail(c, n, "an index must be an integer, not a %s", type_names[b.t]);
		int64_t i = b.u.i < 0 ? b.u.i + (int64_t)len : b.u.i;
		if (i < 0 || (uint64_t)i >= len)
			return eval_fail(c, n, "index %" PRId64 " out of range (length %" PRIu64 ")",
			                 b.u.i, len);
		*out = iter_at(&a, (uint64_t)i);
		return KJIT_OK;
	}
	}
	return eval_fail(c, n, "bad node");
}

/* ---- the flat program ---------------------------------------------------- */

/* Most restrictions are integer arithmetic and comparisons of integer
 * parameters, evaluated once per configuration of a walk. They are also
 * lowered to a flat program over int64 registers that runs without
 * recursion, step counts or tagged values. Whatever it does not cover (a
 * float, an int64 overflow, a string, a shift by a negative count) leaves
 * the evaluation to the tree, which gives the same result or the same
 * error: the program has no effect to undo. Both sides of and, or and if
 * are run, which changes nothing without effects. */
#define FLAT_MAX 64 /* instructions: registers are indexed by a byte */

enum { I_CONST, I_SLOT, I_ARITH, I_CMP, I_AND, I_OR, I_NOT, I_NEG, I_INVERT, I_IF, I_MIN,
       I_MAX, I_ABS };

typedef struct flat_op {
	uint8_t code, op;
	uint8_t a, b, c; /* the registers read: earlier instructions' results */
	int slot;
	int64_t k;
	const node *n;
} flat_op;

struct flat {
	size_t n;
	uint8_t result;
	flat_op ops[];
};

/* The register of op, appended; -1 when the program is full. */
static int flat_emit(flat_op *ops, size_t *n, flat_op op)
{
	if (*n == FLAT_MAX)
		return -1;
	ops[*n] = op;
	return (int)(*n)++;
}

/* x op y into ops, for each later pair of x, y */
static int flat_chain(flat_op *ops, size_t *n, uint8_t code, int r, int y, int op, const node *nd)
{
	return r < 0 || y < 0 ? -1
	                      : flat_emit(ops, n, (flat_op){ .code = code, .op = (uint8_t)op,
	                                                      .a = (uint8_t)r, .b = (uint8_t)y,
	                                                      .n = nd });
}

/* The register that holds nd's value, or -1 where the tree must do it. */
static int lower(const node *nd, flat_op *ops, size_t *n)
{
	int a, b, r;
	switch (nd->type) {
	case N_CONST:
		if (nd->k.t != V_INT && nd->k.t != V_BOOL)
			return -1;
		return flat_emit(ops, n, (flat_op){ .code = I_CONST, .k = nd->k.u.i });
	case N_SLOT:
		return flat_emit(ops, n, (flat_op){ .code = I_SLOT, .slot = nd->slot });
	case N_POS: /* +True is 1: the same number */
		return lower(nd->kids[0], ops, n);
	case N_NEG:
	case N_INVERT:
	case N_NOT:
		if ((a = lower(nd->kids[0], ops, n)) < 0)
			return -1;
		return flat_emit(ops, n, (flat_op){ .code = nd->type == N_NEG      ? I_NEG
		                                            : nd->type == N_INVERT ? I_INVERT
		                                                                   : I_NOT,
		                                    .a = (uint8_t)a });
	case N_BINARY:
	case N_AND:
	case N_OR:
		a = lower(nd->kids[0], ops, n);
		b = a < 0 ? -1 : lower(nd->kids[1], ops, n);
		return flat_chain(ops, n, nd->type == N_BINARY ? I_ARITH : nd->type == N_AND ? I_AND
		                                                                                : I_OR,
		                  a, b, nd->op, nd);
	case N_COMPARE:
		r = -1;
		a = lower(nd->kids[0], ops, n);
		for (size_t i = 0; a >= 0 && i + 1 < nd->n_kids; i++) {
			if (nd->ops[i] == C_IN || nd->ops[i] == C_NOTIN)
				return -1;
			b = lower(nd->kids[i + 1], ops, n);
			int t = flat_chain(ops, n, I_CMP, a, b, nd->ops[i], nd);
			r = r < 0 ? t : flat_chain(ops, n, I_AND, r, t, 0, nd);
			if (r < 0)
				return -1;
			a = b;
		}
		return r;
	case N_IF:
		if ((r = lower(nd->kids[1], ops, n)) < 0 || (a = lower(nd->kids[0], ops, n)) < 0 ||
		    (b = lower(nd->kids[2], ops, n)) < 0)
			return -1;
		return flat_emit(ops, n, (flat_op){ .code = I_IF, .a = (uint8_t)r, .b = (uint8_t)a,
		                                    .c = (uint8_t)b });
	case N_CALL:
		if (nd->op == F_ABS && nd->n_kids == 1) {
			if ((a = lower(nd->kids[0], ops, n)) < 0)
				return -1;
			return flat_emit(ops, n, (flat_op){ .code = I_ABS, .a = (uint8_t)a });
		}
		if ((nd->op != F_MIN && nd->op != F_MAX) || nd->n_kids < 2)
			return -1;
		r = lower(nd->kids[0], ops, n);
		for (size_t i = 1; r >= 0 && i < nd->n_kids; i++)
			r = flat_chain(ops, n, nd->op == F_MIN ? I_MIN : I_MAX, r,
			               lower(nd->kids[i], ops, n), 0, nd);
		return r;
	}
	return -1;
}

/* root's flat program in p's memory; NULL when it has none. */
static const struct flat *flatten(pool *p, const node *root)
{
	flat_op ops[FLAT_MAX];
	size_t n = 0;
	int r = lower(root, ops, &n);
	struct flat *f = r < 0 ? NULL : pool_alloc(p, sizeof *f + n * sizeof ops[0]);
	if (f) {
		f->n = n;
		f->result = (uint8_t)r;
		memcpy(f->ops, ops, n * sizeof ops[0]);
	}
	return f;
}

static int flat_compare(int op, int64_t x, int64_t y)
{
	switch (op) {
	case C_LT: return x < y;
	case C_LE: return x <= y;
	case C_GT: return x > y;
	case C_GE: return x >= y;
	case C_EQ: return x == y;
	default: return x != y;
	}
}

/* 1: *out is e's value; 0: the tree must evaluate it. */
static int flat_run(const kjit__expr *e, const kjit__value *slots, double *out)
{
	const struct flat *f = e->flat;
	int64_t r[FLAT_MAX];
	ctx c; /* arith_int() reads its dialect; with shifts checked it fails nothing */
	c.pool = e->pool;
	for (size_t i = 0; i < f->n; i++) {
		const flat_op *o = &f->ops[i];
		val v;
		switch (o->code) {
		case I_CONST: r[i] = o->k; break;
		case I_SLOT:
			if (slots[o->slot].kind != SQLITE_INTEGER)
				return 0;
			r[i] = slots[o->slot].i;
			break;
		case I_ARITH:
			if (o->op == OP_ADD || o->op == OP_SUB || o->op == OP_MUL) {
				int over = o->op == OP_ADD   ? __builtin_add_overflow(r[o->a], r[o->b], &r[i])
				           : o->op == OP_SUB ? __builtin_sub_overflow(r[o->a], r[o->b], &r[i])
				                             : __builtin_mul_overflow(r[o->a], r[o->b], &r[i]);
				if (over)
					return 0;
				break;
			}
			if ((o->op == OP_SHL || o->op == OP_SHR) && r[o->b] < 0)
				return 0;
			if (arith_int(&c, o->n, o->op, r[o->a], r[o->b], &v) != KJIT_OK || v.t != V_INT)
				return 0;
			r[i] = v.u.i;
			break;
		case I_CMP: r[i] = flat_compare(o->op, r[o->a], r[o->b]); break;
		case I_AND: r[i] = r[o->a] ? r[o->b] : r[o->a]; break;
		case I_OR: r[i] = r[o->a] ? r[o->a] : r[o->b]; break;
		case I_NOT: r[i] = !r[o->a]; break;
		case I_INVERT: r[i] = ~r[o->a]; break;
		case I_IF: r[i] = r[o->a] ? r[o->b] : r[o->c]; break;
		case I_MIN: r[i] = r[o->b] < r[o->a] ? r[o->b] : r[o->a]; break;
		case I_MAX: r[i] = r[o->b] > r[o->a] ? r[o->b] : r[o->a]; break;
		case I_NEG:
		case I_ABS:
			if (r[o->a] == INT64_MIN)
				return 0;
			r[i] = o->code == I_NEG || r[o->a] < 0 ? -r[o->a] : r[o->a];
			break;
		}
	}
	*out = (double)r[f->result];
	return 1;
}

/* Draws a flat program's steps on the spec's budget (shared: the
 * evaluation draws on it); 0 when they would overrun it, so that the
 * tree reports the spent budget as it does. */
static int flat_charge(const kjit__expr *e, int shared)
{
	kjit__expr_budget *b = shared ? e->pool->budget : NULL;
	if (!b)
		return 1;
	uint64_t spent = atomic_load(&b->spent);
	if (spent > b->limit || b->limit - spent < e->flat->n)
		return 0;
	atomic_fetch_add(&b->spent, e->flat->n);
	return 1;
}

/* shared: the evaluation draws on the spec's budget */
static kjit_status run(const kjit__expr *e, const kjit__value *slots, int shared, ctx *c,
                       val *out)
{
	c->blocks = NULL;
	c->n_blocks = c->cap_blocks = 0;
	c->bytes = 0;
	c->pool = e->pool;
	c->budget = shared ? e->pool->budget : NULL;
	c->slots = slots;
	c->steps = STEP_BUDGET;
	c->spec_bound = 0;
	if (c->budget) {
		uint64_t limit = c->budget->limit, spent = atomic_load(&c->budget->spent);
		uint64_t left = spent < limit ? limit - spent : 0;
		if (left < c->steps) {
			c->steps = left;
			c->spec_bound = 1;
		}
	}
	c->granted = c->steps;
	return eval(c, e->root, out);
}

static kjit_status eval_number(const kjit__expr *e, const kjit__value *slots, int shared,
                               double *out)
{
	ctx c; /* run() sets it up: its locals need no clearing */
	val v;
	if (e->flat && flat_run(e, slots, out) && flat_charge(e, shared))
		return KJIT_OK;
	kjit_status st = run(e, slots, shared, &c, &v);
	if (st == KJIT_OK) {
		if (is_num(&v))
			*out = as_double(&v);
		else if (v.t == V_NONE && e->pool->dialect == KJIT__DIALECT_KJIT)
			*out = NAN;
		else
			st = eval_fail(&c, e->root, "the value is a %s, not a number", type_names[v.t]);
	}
	ctx_done(&c);
	return st;
}

kjit_status kjit__expr_eval(const kjit__expr *e, const kjit__value *slots, double *out)
{
	return eval_number(e, slots, 1, out);
}

kjit_status kjit__expr_eval_own(const kjit__expr *e, const kjit__value *slots, double *out)
{
	return eval_number(e, slots, 0, out);
}

kjit_status kjit__expr_eval_tree(const kjit__expr *e, const kjit__value *slots, double *out)
{
	kjit__expr tree = *e;
	tree.flat = NULL;
	return eval_number(&tree, slots, 0, out);
}

int kjit__expr_is_flat(const kjit__expr *e)
{
	return e->flat != NULL;
}

void kjit__values_free(kjit__value *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
}

kjit_status kjit__expr_eval_list(const kjit__expr *e, const kjit__value *slots, size_t max,
                                 kjit__value **out, size_t *n)
{
	ctx c;
	val v, list = { .t = V_LIST };
	*out = NULL;
	*n = 0;
	kjit_status st = run(e, slots, 1, &c, &v);
	if (st == KJIT_OK && v.t != V_LIST && v.t != V_RANGE)
		st = eval_fail(&c, e->root, "the value is a %s, not a list", type_names[v.t]);
	if (st == KJIT_OK && (st = materialize(&c, e->root, &v, &list)) == KJIT_OK &&
	    list.u.list.n > max)
		st = eval_fail(&c, e->root, "%zu values, more than %zu", list.u.list.n, max);
	kjit__value *r = NULL;
	if (st == KJIT_OK && !(r = calloc(list.u.list.n + 1, sizeof *r)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t k = 0; st == KJIT_OK && k < list.u.list.n; k++) {
		const val *x = &list.u.list.items[k];
		char buf[40];
		const char *text = number_text(x, buf);
		if (x->t == V_STR && memchr(x->u.str.s, '\0', x->u.str.len)) {
			st = eval_fail(&c, e->root, "item %zu holds a NUL character", k);
			break;
		} else if (x->t == V_STR) {
			r[k].kind = SQLITE_TEXT;
			r[k].text = malloc(x->u.str.len + 1);
			if (r[k].text) {
				memcpy(r[k].text, x->u.str.s, x->u.str.len);
				r[k].text[x->u.str.len] = '\0';
			}
		} else if (x->t == V_BOOL || x->t == V_INT || x->t == V_FLOAT) {
			r[k].kind = x->t == V_FLOAT ? SQLITE_FLOAT : SQLITE_INTEGER;
			r[k].i = x->t == V_FLOAT ? 0 : x->u.i;
			r[k].d = as_double(x);
			r[k].text = strdup(text);
		} else {
			st = eval_fail(&c, e->root, "item %zu is a %s, not a number, a string or a bool",
			               k, type_names[x->t]);
			break;
		}
		if (!r[k].text)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	ctx_done(&c);
	if (st != KJIT_OK) {
		kjit__values_free(r, list.u.list.n);
		return st;
	}
	*out = r;
	*n = list.u.list.n;
	return KJIT_OK;
}
