"""judge_score: an automatic judge's score per answer, imported by the researcher (import judge-scores)

Revision ID: 0010
Revises: 0009
"""
import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('judge_score',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('answer_id', sa.Integer(), nullable=False),
    sa.Column('judge', sa.String(length=200), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['answer_id'], ['answer.id'], name=op.f('fk_judge_score_answer_id_answer'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_judge_score')),
    sa.UniqueConstraint('answer_id', 'judge', name=op.f('uq_judge_score_answer_id_judge'))
    )
    with op.batch_alter_table('judge_score', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_judge_score_answer_id'), ['answer_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('judge_score', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_judge_score_answer_id'))
    op.drop_table('judge_score')
