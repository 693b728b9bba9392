import {
  OperationNodeTransformer,
  OperatorNode,
  PostgresDialect,
  PostgresQueryCompiler,
  PrimitiveValueListNode,
  replaceWithNoncontingentExpression,
  ValueListNode,
  type BinaryOperationNode,
  type CompiledQuery,
  type EmptyInListNode,
  type QueryCompiler,
  type QueryId,
  type RootOperationNode,
} from 'kysely';

/**
 * PostgreSQL as Kysely speaks it, except that an empty `in` list matches nothing (and `not in`
 * an empty list everything), wherever it is in the query: `in ()` is a syntax error in SQL, and a
 * filter that parses to no values must never turn into a 500.
 */
export class PostgresWithEmptyInLists extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler {
    return new EmptyInListsCompiler();
  }
}

/**
 * A query is compiled as written and, only when its text shows an empty list, again with the
 * lists replaced. Kysely's HandleEmptyInListsPlugin rebuilds every query's tree first, a cost on
 * each statement the service sends, and misses a list inside an operand (`id in (select ...
 * where x in ())`).
 */
class EmptyInListsCompiler extends PostgresQueryCompiler {
  private readonly rewrite = new EmptyInListsRewrite();

  override compileQuery(node: RootOperationNode, queryId: QueryId): CompiledQuery {
    const compiled = super.compileQuery(node, queryId);
    if (!compiled.sql.includes('in ()')) return compiled;
    return super.compileQuery(this.rewrite.transformNode(node, queryId), queryId);
  }
}

class EmptyInListsRewrite extends OperationNodeTransformer {
  protected override transformBinaryOperation(
    node: BinaryOperationNode,
    queryId?: QueryId,
  ): BinaryOperationNode {
    return isEmptyIn(node)
      ? replaceWithNoncontingentExpression(node)
      : super.transformBinaryOperation(node, queryId);
  }
}

function isEmptyIn(node: BinaryOperationNode): node is EmptyInListNode {
  const { operator, rightOperand } = node;
  return (
    (PrimitiveValueListNode.is(rightOperand) || ValueListNode.is(rightOperand)) &&
    rightOperand.values.length === 0 &&
    OperatorNode.is(operator) &&
    (operator.operator === 'in' || operator.operator === 'not in')
  );
}
