"""assignment: one row per worker, HIT and provider assignment id (was: per worker and HIT)

A HIT accepted again on MTurk gets a new assignment id and so a new assignment with a fresh time limit, and
an arrival under an id its worker never had is its own row, never another's (docs/security.md, "Arrival
rules").

Revision ID: 0013
Revises: 0012
"""
import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_constraint('uq_assignment_hit_id_worker_id', type_='unique')
        batch_op.create_unique_constraint(
            batch_op.f('uq_assignment_hit_id_worker_id_provider_assignment_id'),
            ['hit_id', 'worker_id', 'provider_assignment_id'])


def downgrade() -> None:
    connection = op.get_bind()
    twice = connection.execute(sa.text(
        "SELECT COUNT(*) FROM (SELECT hit_id, worker_id FROM assignment GROUP BY hit_id, worker_id "
        "HAVING COUNT(*) > 1) AS pairs")).scalar_one()
    if twice:
        raise RuntimeError(f"cannot downgrade below 0012: {twice} worker(s) have more than one assignment on a "
                           "HIT (under different provider assignment ids); 0011 allows one")
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_constraint('uq_assignment_hit_id_worker_id_provider_assignment_id', type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_assignment_hit_id_worker_id'), ['hit_id', 'worker_id'])
