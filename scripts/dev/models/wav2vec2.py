"""wav2vec2: transformers Wav2Vec2Model, tiny random config (2 conv layers, hidden 32, 2 layers, 4 heads); returns last_hidden_state."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                                          conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                                          num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
                                          vocab_size=32)
        self.m = transformers.Wav2Vec2Model(cfg)

    def forward(self, input_values):
        return self.m(input_values=input_values).last_hidden_state


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 400, generator=g),)
