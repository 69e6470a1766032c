/**
 * An AMQP SQL filter expression's tokens (sql-filter-lexer.ts) as a tree, by RabbitMQ 4.2's
 * grammar (rabbit_amqp_sql_parser): OR binds loosest, then AND, then NOT, then the comparisons
 * (=, <>, <, >, <=, >=, which do not chain), LIKE … [ESCAPE …], [NOT] IN (…), identifier IS [NOT]
 * NULL, then + and -, then *, / and %, then unary + and - (on a primary only). A primary is a
 * literal, an identifier, UTC() or a parenthesised expression. LIKE patterns are compiled here
 * (sql-like.ts), once. Anything else is a SqlSyntaxError.
 */
import { SqlSyntaxError, type Identifier, type Token } from "./sql-filter-lexer.js";
import { compileLike, type LikePattern } from "./sql-like.js";

export type SqlNode =
  | { readonly kind: "literal"; readonly value: number | string | Buffer | boolean }
  | { readonly kind: "identifier"; readonly id: Identifier }
  | { readonly kind: "utc" }
  | { readonly kind: "and" | "or"; readonly left: SqlNode; readonly right: SqlNode }
  | { readonly kind: "not"; readonly operand: SqlNode }
  | { readonly kind: "compare" | "arithmetic"; readonly op: string; readonly left: SqlNode; readonly right: SqlNode }
  | { readonly kind: "unary"; readonly op: "+" | "-"; readonly operand: SqlNode }
  | { readonly kind: "in"; readonly operand: SqlNode; readonly list: readonly SqlNode[] }
  | { readonly kind: "is-null"; readonly operand: SqlNode }
  | { readonly kind: "like"; readonly operand: SqlNode; readonly pattern: LikePattern };

const COMPARISONS = new Set(["=", "<>", ">", "<", ">=", "<="]);

class Parser {
  private pos = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parse(): SqlNode {
    const node = this.or();
    if (this.pos < this.tokens.length) throw new SqlSyntaxError(`unexpected token ${this.pos + 1}`);
    return node;
  }

  private isOp(op: string, ahead = 0): boolean {
    const t = this.tokens[this.pos + ahead];
    return t !== undefined && t.kind === "op" && t.op === op;
  }

  private expectOp(op: string): void {
    if (!this.isOp(op)) throw new SqlSyntaxError(`expected ${op} at token ${this.pos + 1}`);
    this.pos++;
  }

  private string(): string {
    const t = this.tokens[this.pos++];
    if (t === undefined || t.kind !== "string") throw new SqlSyntaxError(`expected a string at token ${this.pos}`);
    return t.value;
  }

  private or(): SqlNode {
    let left = this.and();
    while (this.isOp("OR")) {
      this.pos++;
      left = { kind: "or", left, right: this.and() };
    }
    return left;
  }

  private and(): SqlNode {
    let left = this.not();
    while (this.isOp("AND")) {
      this.pos++;
      left = { kind: "and", left, right: this.not() };
    }
    return left;
  }

  private not(): SqlNode {
    if (!this.isOp("NOT")) return this.comparison();
    this.pos++;
    return { kind: "not", operand: this.not() };
  }

  private comparison(): SqlNode {
    const start = this.pos;
    const left = this.additive();
    const t = this.tokens[this.pos];
    if (t === undefined || t.kind !== "op") return left;
    if (COMPARISONS.has(t.op)) {
      this.pos++;
      return { kind: "compare", op: t.op, left, right: this.additive() };
    }
    if (t.op === "IS") {
      // Only a bare identifier may be tested for NULL (the grammar's identifier_expr).
      const bare = this.pos - start === 1 && this.tokens[start]!.kind === "identifier";
      if (!bare) throw new SqlSyntaxError("IS NULL applies to an identifier");
      this.pos++;
      const negated = this.isOp("NOT");
      if (negated) this.pos++;
      this.expectOp("NULL");
      const node: SqlNode = { kind: "is-null", operand: left };
      return negated ? { kind: "not", operand: node } : node;
    }
    const negated = t.op === "NOT" && (this.isOp("LIKE", 1) || this.isOp("IN", 1));
    if (negated) this.pos++;
    let node: SqlNode | null = null;
    if (this.isOp("LIKE")) {
      this.pos++;
      const pattern = this.string();
      let escape: string | null = null;
      if (this.isOp("ESCAPE")) {
        this.pos++;
        escape = this.string();
        if ([...escape].length !== 1) throw new SqlSyntaxError("ESCAPE must be a single-character string literal");
      }
      node = { kind: "like", operand: left, pattern: compileLike(pattern, escape) };
    } else if (this.isOp("IN")) {
      this.pos++;
      this.expectOp("(");
      const list = [this.additive()];
      while (this.isOp(",")) {
        this.pos++;
        list.push(this.additive());
      }
      this.expectOp(")");
      node = { kind: "in", operand: left, list };
    }
    if (node === null) return left;
    return negated ? { kind: "not", operand: node } : node;
  }

  private additive(): SqlNode {
    let left = this.multiplicative();
    while (this.isOp("+") || this.isOp("-")) {
      const op = (this.tokens[this.pos++] as { op: string }).op;
      left = { kind: "arithmetic", op, left, right: this.multiplicative() };
    }
    return left;
  }

  private multiplicative(): SqlNode {
    let left = this.unary();
    while (this.isOp("*") || this.isOp("/") || this.isOp("%")) {
      const op = (this.tokens[this.pos++] as { op: string }).op;
      left = { kind: "arithmetic", op, left, right: this.unary() };
    }
    return left;
  }

  private unary(): SqlNode {
    if (this.isOp("+") || this.isOp("-")) {
      const op = (this.tokens[this.pos++] as { op: "+" | "-" }).op;
      return { kind: "unary", op, operand: this.primary() };
    }
    return this.primary();
  }

  private primary(): SqlNode {
    const t = this.tokens[this.pos++];
    if (t === undefined) throw new SqlSyntaxError("unexpected end of the expression");
    switch (t.kind) {
      case "int":
      case "float":
      case "string":
      case "binary":
      case "boolean":
        return { kind: "literal", value: t.value };
      case "identifier":
        return { kind: "identifier", id: t.id };
      case "op":
        if (t.op === "(") {
          const inner = this.or();
          this.expectOp(")");
          return inner;
        }
        if (t.op === "UTC") {
          this.expectOp("(");
          this.expectOp(")");
          return { kind: "utc" };
        }
    }
    throw new SqlSyntaxError(`unexpected token ${this.pos}`);
  }
}

/** The expression's tree; throws SqlSyntaxError. */
export function parseSql(tokens: readonly Token[]): SqlNode {
  return new Parser(tokens).parse();
}
