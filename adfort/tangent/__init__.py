"""Tangent (forward) mode and Hessian-vector products.

- :mod:`adfort.tangent.expression`: tangents of expressions and assignments
  from the shared rules table;
- :mod:`adfort.tangent.routine`: ``r_fwd`` of one routine;
- :mod:`adfort.tangent.mpi`: tangents of MPI communication;
- :mod:`adfort.tangent.build`: the call graph, :class:`ADTangentContainerTrans`.
"""
