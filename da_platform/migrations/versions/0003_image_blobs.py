"""image_blob: answer images kept in the database (DA_IMAGE_STORE=database)

Revision ID: 0003_image_blobs
Revises: 0002
"""
from alembic import op
import sqlalchemy as sa


revision = '0003_image_blobs'
down_revision = '0002'
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
