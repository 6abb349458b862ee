"""image_blob: answer images kept in the database (DA_IMAGE_STORE=database)

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('image_blob',
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_image_blob'))
    )


def downgrade() -> None:
    op.drop_table('image_blob')
